import { FOLDER_NAME_MAX_LENGTH } from '@panx/contract';

/** SPEC §5: folder names have no slash and at most 1000 characters (and are not empty, `.` or `..`). */
export function folderNameError(name: string): string | undefined {
  if (name.trim() === '') return 'Enter a name.';
  if (name.includes('/')) return 'Folder names cannot contain "/".';
  if (name.length > FOLDER_NAME_MAX_LENGTH) return `Folder names are at most ${FOLDER_NAME_MAX_LENGTH} characters.`;
  if (name === '.' || name === '..') return 'Folder names cannot be "." or "..".';
  return undefined;
}

/** Object names: not empty. */
export function objectNameError(name: string): string | undefined {
  if (name.trim() === '') return 'Enter a name.';
  if (name.length > 32_768) return 'Names are at most 32,768 characters.';
  return undefined;
}
