import { describe, expect, it } from 'vitest';
import { bulkDownloadFiles, initialModals, modalsReducer, safeFileName } from './modal-state';

describe('data modals (SPEC §3, §4)', () => {
  it('starts closed, with delete status none and download loading true', () => {
    const state = initialModals();
    expect(state['delete-data']).toMatchObject({ isOpen: false, idsToDelete: [], deleteStatus: 'NONE' });
    expect(state['download-data']).toMatchObject({ isOpen: false, loading: true, urls: [] });
    expect(state['preview-file'].isOpen).toBe(false);
    expect(state['import-urls'].isOpen).toBe(false);
  });

  it('delete: request, then fail keeps the ids and the reason; success closes', () => {
    let state = modalsReducer(initialModals(), { type: 'openDelete', projectId: 'project-1', ids: ['file-1'], folders: ['/a'] });
    state = modalsReducer(state, { type: 'deleteRequest' });
    expect(state['delete-data'].deleteStatus).toBe('REQUESTING');
    state = modalsReducer(state, { type: 'deleteFail', error: 'PermissionDenied' });
    expect(state['delete-data']).toMatchObject({
      isOpen: true,
      idsToDelete: ['file-1'],
      foldersToDelete: ['/a'],
      deleteStatus: 'FAIL',
      error: 'PermissionDenied',
    });
    state = modalsReducer(state, { type: 'deleteRequest' });
    state = modalsReducer(state, { type: 'deleteSuccess' });
    expect(state['delete-data']).toMatchObject({ isOpen: false, idsToDelete: [], deleteStatus: 'SUCCESS' });
  });

  it('download: preparing, then URLs; one dialog at a time', () => {
    let state = modalsReducer(initialModals(), { type: 'openPreview', fileID: 'file-9' });
    state = modalsReducer(state, { type: 'openDownload', fileIDs: ['file-1', 'file-2'] });
    expect(state['preview-file'].isOpen).toBe(false);
    state = modalsReducer(state, { type: 'downloadRequest' });
    expect(state['download-data']).toMatchObject({ isPreparingDownload: true, loading: true });
    state = modalsReducer(state, { type: 'downloadSuccess', urls: [{ id: 'file-1', name: 'a', url: 'u' }] });
    expect(state['download-data']).toMatchObject({ isPreparingDownload: false, loading: false, downloadInfo: '1 file ready' });
    state = modalsReducer(state, { type: 'close', modal: 'download-data' });
    expect(state['download-data']).toEqual(initialModals()['download-data']);
  });

  it('writes a manifest and a shell script that quotes names and URLs', () => {
    const { manifest, script } = bulkDownloadFiles([
      { id: 'file-1', name: "it's/a.txt", url: 'http://x/download/1?a=1&b=2', size: 3 },
      { id: 'file-2', name: 'b.txt', url: 'http://x/2' },
    ]);
    expect(JSON.parse(manifest)).toHaveLength(2);
    expect(script).toContain(`-o 'it'\\''s_a.txt' 'http://x/download/1?a=1&b=2'`);
    expect(script.startsWith('#!/bin/sh')).toBe(true);
    expect(safeFileName('..')).toBe('_');
  });
});
