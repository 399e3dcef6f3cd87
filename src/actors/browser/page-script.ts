// The JavaScript the snapshot runs inside the page's isolated world (it shares the DOM, not the page's globals,
// so a page cannot see or tamper with it): readable text with numbered interactive elements, and the helpers
// that find an element by its number again. Plain JS text: it runs in the browser, not in Node.

/** Installs `globalThis.__yagent` (refs + helpers) and returns `{ title, url, text, refs }`. */
export function snapshotScript(maxChars: number): string {
  return `(() => {
  const MAX = ${Math.max(1000, Math.floor(maxChars))};
  const refs = [];
  const out = [];
  let line = '';
  let size = 0;
  const clean = (s) => String(s == null ? '' : s).replace(/\\s+/g, ' ').trim();
  const cut = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const flush = () => { const t = clean(line); line = ''; if (t && out[out.length - 1] !== t) { out.push(t); size += t.length + 1; } };
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'svg', 'SVG', 'CANVAS']);
  const BLOCK = /^(block|flex|grid|list-item|table|table-row|table-caption|flow-root)$/;
  const ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'switch', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem']);
  const kindOf = (el) => {
    const tag = el.tagName;
    const role = (el.getAttribute('role') || '').toLowerCase();
    if (tag === 'A' && el.hasAttribute('href')) return 'link';
    if (tag === 'BUTTON' || tag === 'SUMMARY') return 'button';
    if (tag === 'INPUT') {
      const t = (el.type || 'text').toLowerCase();
      if (t === 'hidden') return null;
      if (['button', 'submit', 'reset', 'image'].includes(t)) return 'button';
      return t === 'checkbox' || t === 'radio' ? t : 'input';
    }
    if (tag === 'TEXTAREA') return 'textarea';
    if (tag === 'SELECT') return 'select';
    if (ROLES.has(role)) return role;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'editable';
    return null;
  };
  const labelOf = (el) => {
    const aria = el.getAttribute('aria-label');
    if (aria && clean(aria)) return clean(aria);
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = clean(by.split(/\\s+/).map((id) => document.getElementById(id)).filter(Boolean).map((e) => e.innerText || e.textContent).join(' '));
      if (t) return t;
    }
    if (el.labels && el.labels.length > 0) return clean([...el.labels].map((l) => l.innerText || l.textContent).join(' '));
    return '';
  };
  const nameOf = (el, k) => {
    const l = labelOf(el);
    if (l) return l;
    if (k === 'input' || k === 'textarea' || k === 'select') return clean(el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('name') || '');
    if (el.tagName === 'INPUT') return clean(el.value || el.getAttribute('alt') || el.getAttribute('title') || '');
    const t = clean(el.innerText || el.textContent);
    if (t) return t;
    const img = el.querySelector && el.querySelector('img[alt]');
    return clean((img && img.getAttribute('alt')) || el.getAttribute('title') || '');
  };
  const describe = (el, k, n) => {
    let s = '[' + n + '] ' + k;
    const name = nameOf(el, k);
    if (name) s += ' "' + cut(name, 100) + '"';
    if (k === 'link') { const h = el.getAttribute('href') || ''; if (!/^javascript:/i.test(h)) s += ' -> ' + cut(el.href, 200); }
    if (k === 'input') {
      const t = (el.type || 'text').toLowerCase();
      if (t !== 'text') s += ' type=' + t;
      if (el.value) s += ' value="' + cut(t === 'password' ? '*'.repeat(Math.min(el.value.length, 8)) : clean(el.value), 80) + '"';
    }
    if (k === 'textarea' && el.value) s += ' value="' + cut(clean(el.value), 80) + '"';
    if (k === 'checkbox' || k === 'radio') s += el.checked ? ' (checked)' : ' (not checked)';
    if (k === 'select') {
      const opts = [...el.options];
      s += ' selected="' + cut(opts.filter((o) => o.selected).map((o) => clean(o.text)).join(', '), 80) + '" options: ' + cut(opts.map((o) => clean(o.text)).join(' | '), 200);
    }
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') s += ' (disabled)';
    return s;
  };
  const walk = (node) => {
    if (size > MAX) return;
    if (node.nodeType === 3) { line += node.data; return; }
    if (node.nodeType === 11) { for (const c of node.childNodes) walk(c); return; }
    if (node.nodeType !== 1) return;
    const el = node;
    const tag = el.tagName;
    if (SKIP.has(tag) || el.hidden || el.getAttribute('aria-hidden') === 'true') return;
    const st = getComputedStyle(el);
    if (st.display === 'none') return;
    const invisible = st.visibility === 'hidden' || st.visibility === 'collapse';
    const k = invisible ? null : kindOf(el);
    if (k) { line += ' ' + describe(el, k, refs.push(el)) + ' '; return; }
    if (tag === 'IMG') { const alt = clean(el.getAttribute('alt')); if (alt && !invisible) line += ' [image "' + cut(alt, 80) + '"] '; return; }
    if (tag === 'IFRAME' || tag === 'FRAME') {
      let doc = null;
      try { doc = el.contentDocument; } catch (e) { doc = null; }
      flush();
      out.push('[frame ' + cut(el.src || '', 120) + (doc && doc.body ? ']' : ': another site, not shown]'));
      if (doc && doc.body) { walk(doc.body); flush(); }
      return;
    }
    const block = BLOCK.test(st.display) || tag === 'BR' || tag === 'HR';
    if (block) flush();
    if (/^H[1-6]$/.test(tag)) line += '#'.repeat(Number(tag[1])) + ' ';
    else if (tag === 'LI') line += '- ';
    else if (tag === 'TD' || tag === 'TH') line += ' | ';
    if (tag === 'HR') out.push('---');
    if (el.shadowRoot) for (const c of el.shadowRoot.childNodes) walk(c);
    if (!invisible || el.children.length > 0) for (const c of el.childNodes) if (!(invisible && c.nodeType === 3)) walk(c);
    if (block) flush();
  };
  walk(document.body || document.documentElement);
  flush();
  const cutShort = size > MAX;
  globalThis.__yagent = { refs, helpers: ${HELPERS} };
  return { title: document.title, url: location.href, text: out.join('\\n'), refs: refs.length, cut: cutShort };
})()`;
}

/** Helpers on `__yagent.helpers`, each taking a ref number; they return plain data (`{ error }` when it cannot act). */
const HELPERS = `{
    element: (n) => {
      const el = globalThis.__yagent.refs[n - 1];
      if (!el) return { error: 'no_such_ref' };
      if (!el.isConnected) return { error: 'stale_ref' };
      return { el };
    },
    point: (n) => {
      const r0 = globalThis.__yagent.helpers.element(n);
      if (r0.error) return r0;
      const el = r0.el;
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return { error: 'not_actionable', why: 'it has no size on the page (hidden?)' };
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2;
      const hit = document.elementFromPoint(x, y);
      if (hit && hit !== el && !el.contains(hit) && !hit.contains(el) && !(el.labels && [...el.labels].some((l) => l.contains(hit)))) {
        const what = hit.tagName.toLowerCase() + (hit.id ? '#' + hit.id : '') + (hit.className && typeof hit.className === 'string' ? '.' + hit.className.trim().split(/\\s+/).join('.') : '');
        return { error: 'not_actionable', why: 'it is covered by <' + what + '>' };
      }
      if (el.disabled) return { error: 'not_actionable', why: 'it is disabled' };
      return { x, y };
    },
    focus: (n, clear) => {
      const r0 = globalThis.__yagent.helpers.element(n);
      if (r0.error) return r0;
      const el = r0.el;
      const tag = el.tagName;
      const editable = tag === 'TEXTAREA' || (tag === 'INPUT' && !['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'hidden'].includes((el.type || 'text').toLowerCase())) || el.isContentEditable;
      if (!editable) return { error: 'not_actionable', why: 'it is not a text field' };
      if (el.disabled || el.readOnly) return { error: 'not_actionable', why: 'it is disabled or read-only' };
      el.scrollIntoView({ block: 'center', behavior: 'instant' });
      el.focus();
      if (el.isContentEditable) {
        const range = document.createRange();
        range.selectNodeContents(el);
        if (!clear) range.collapse(false);
        const sel = getSelection(); sel.removeAllRanges(); sel.addRange(range);
      } else if (clear) el.select();
      else { try { const n = el.value.length; el.setSelectionRange(n, n); } catch (e) { /* email/number inputs have no selection */ } }
      return { ok: true, empty: !(el.value || el.textContent) };
    },
    choose: (n, option) => {
      const r0 = globalThis.__yagent.helpers.element(n);
      if (r0.error) return r0;
      const el = r0.el;
      if (el.tagName !== 'SELECT') return { error: 'not_actionable', why: 'it is not a select' };
      const want = String(option).trim().toLowerCase();
      const opt = [...el.options].find((o) => o.text.trim().toLowerCase() === want || o.value.toLowerCase() === want);
      if (!opt) return { error: 'not_actionable', why: 'it has no option "' + option + '"' };
      el.value = opt.value;
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return { ok: true, chosen: opt.text.trim() };
    },
  }`;
