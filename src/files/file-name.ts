// A client's file name made safe to store and to send back in Content-Disposition: no folders, no
// control or quoting characters, no leading dots, at most 200 characters (its extension kept).
const MAX_LENGTH = 200;
// Control characters, path separators and the characters Windows and header quoting cannot hold.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f<>:"/\\|?*\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function sanitizeFileName(raw: string | undefined): string {
  const last = (raw ?? '').split(/[/\\]/).pop() ?? '';
  let name = last
    .normalize('NFC')
    .replace(UNSAFE, '_')
    .trim()
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '');
  if (name === '') return 'file';
  const characters = [...name];
  if (characters.length > MAX_LENGTH) {
    const dot = name.lastIndexOf('.');
    const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    name = characters.slice(0, MAX_LENGTH - [...extension].length).join('') + extension;
  }
  return name;
}
