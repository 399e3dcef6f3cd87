// Does a Director answer claim or promise work (a change, a run, a look at the repository) that no delegation did?
// Only such an answer earns the one un-delegated reminder: a greeting or an answer from what it has costs one call.

const VERB =
  '(?:creat|updat|modif|fix|chang|edit|writ|wrote|written|add|remov|delet|renam|ran\\b|run|execut|install|commit|refactor|implement|check|look|read|search|inspect|review|test|analy[sz]|examin|open|scan|patch|appl|build|built|deploy|migrat|generat|investigat|explor|verif|grep|list|mov|replac|rewr|clon|download|fetch|compil|restart|configur|set up|delegat)';

const PATTERNS: readonly RegExp[] = [
  // done: "I created", "I've fixed", "I have just updated", "I already ran"
  new RegExp(`\\bI(?:'ve|\\s+have|\\s+had)?(?:\\s+(?:just|already|now|also|successfully))*\\s+${VERB}`, 'i'),
  // promised: "I'll check", "I will now run", "I'm going to look", "let me read", "I'm checking"
  new RegExp(`\\b(?:I(?:'ll|\\s+will|'m\\s+going\\s+to|\\s+am\\s+going\\s+to|\\s+shall)|let\\s+me|let's)(?:\\s+(?:now|first|just|quickly|also|go\\s+ahead\\s+and))*\\s+${VERB}`, 'i'),
  new RegExp(`\\bI(?:'m|\\s+am)(?:\\s+(?:now|currently|just))*\\s+${VERB}\\w*ing\\b`, 'i'),
  // passive: "the file has been updated", "the tests have been run"
  new RegExp(`\\b(?:has|have)\\s+been\\s+(?:successfully\\s+)?${VERB}\\w*(?:ed|en|t|n)\\b`, 'i'),
  // a reply that opens with the outcome: "Done.", "Fixed:", "Updated the README"
  /^\s*(?:done|fixed|updated|created|changed|implemented|applied)\b/i,
];

export function claimsWork(text: string): boolean {
  const plain = text.replace(/<thought>[\s\S]*?<\/thought>/gi, ' ').replace(/```[\s\S]*?```/g, ' ');
  return PATTERNS.some((p) => p.test(plain));
}
