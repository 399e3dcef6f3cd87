// Small string helpers; the demo adds a new one (slugify) and a test for it.
export function capitalize(s) {
  return s.length === 0 ? s : s[0].toUpperCase() + s.slice(1);
}

export function words(s) {
  return s.split(/\s+/).filter((w) => w.length > 0);
}
