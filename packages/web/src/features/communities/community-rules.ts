/** A link of a community's navigation or home JSON: inside the app, or an https:// site opened apart. */
export type CommunityHref = { kind: 'app'; to: string } | { kind: 'external'; href: string } | { kind: 'invalid' };

/** The server accepts only these two forms; anything else is dropped here too (defence in depth). */
export function classifyHref(href: string): CommunityHref {
  if (/^\/panx(\/|$)/.test(href) && !href.startsWith('//') && !href.includes('\\')) return { kind: 'app', to: href };
  if (/^https:\/\/[^\s/]+/.test(href)) return { kind: 'external', href };
  return { kind: 'invalid' };
}

/** Header logos are data:image URLs or paths under /panx/ (the Content-Security-Policy allows both). */
export function safeLogo(logo: string | null | undefined): string | undefined {
  if (!logo) return undefined;
  if (/^data:image\/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/]+=*$/.test(logo)) return logo;
  if (/^\/panx\/\S*$/.test(logo)) return logo;
  return undefined;
}

/** Initials for a community without a logo: "Rare Disease Consortium" → "RD". */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? `${words[0]?.[0] ?? ''}${words[1]?.[0] ?? ''}` : (words[0]?.slice(0, 2) ?? '');
  return letters.toUpperCase() || '?';
}
