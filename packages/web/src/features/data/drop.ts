/**
 * Files from a drop (files and whole folders, read through the entries API) or from a file input
 * (`webkitdirectory` inputs give each file its relative path), each with its path relative to the drop.
 */
import type { DroppedFile } from './upload-planner';
import type { UploadSource } from './uploader';

export type PickedFile = UploadSource & DroppedFile;

function withPath(file: File, relativePath: string): PickedFile {
  const source = file as PickedFile;
  Object.defineProperty(source, 'relativePath', { value: relativePath, configurable: true });
  return source;
}

export function filesFromInput(list: FileList | readonly File[] | null): PickedFile[] {
  return [...(list ?? [])].map((file) => withPath(file, file.webkitRelativePath || file.name));
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

async function walk(entry: FileSystemEntry, prefix: string, out: PickedFile[]): Promise<void> {
  if (entry.isFile) {
    out.push(withPath(await fileOf(entry as FileSystemFileEntry), `${prefix}${entry.name}`));
    return;
  }
  if (!entry.isDirectory) return;
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries answers in batches until an empty one.
  for (;;) {
    const batch = await readEntries(reader);
    if (batch.length === 0) break;
    for (const child of batch) await walk(child, `${prefix}${entry.name}/`, out);
  }
}

export async function filesFromDrop(transfer: DataTransfer): Promise<PickedFile[]> {
  const entries = [...transfer.items]
    .filter((item) => item.kind === 'file')
    .map((item) => (typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null));
  if (entries.length === 0 || entries.some((entry) => entry === null)) return filesFromInput(transfer.files);
  const out: PickedFile[] = [];
  for (const entry of entries) if (entry) await walk(entry, '', out);
  return out;
}
