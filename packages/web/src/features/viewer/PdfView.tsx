import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { describeError } from '../../ui/describe-error';
import { LoadingState } from '../../ui/states';
import { signedUrl } from './bytes';
import type { ViewTarget } from './GenomicsViews';
import classes from './viewer.module.css';

type PdfModule = typeof import('pdfjs-dist');
type PdfDocument = Awaited<ReturnType<PdfModule['getDocument']>['promise']>;

/**
 * PDF pages drawn on a canvas by PDF.js, one at a time. PDF.js reads the file with HTTP Range requests
 * on the signed URL (no whole download for a page), runs without eval, and draws glyphs as paths
 * (no font loading, which the page's CSP would refuse). The page's text is shown below, selectable.
 */
export function PdfView({ target }: { target: ViewTarget }) {
  const [doc, setDoc] = useState<PdfDocument>();
  const [error, setError] = useState<unknown>();
  const [pageNumber, setPageNumber] = useState(1);
  const [text, setText] = useState('');
  const canvas = useRef<HTMLCanvasElement>(null);

  useEffect(() => {
    let stale = false;
    let loaded: PdfDocument | undefined;
    (async () => {
      const pdfjs = await import('pdfjs-dist');
      pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;
      const url = await signedUrl(target.id, target.project);
      const task = pdfjs.getDocument({
        url,
        disableAutoFetch: true,
        disableStream: true,
        rangeChunkSize: 65_536,
        isEvalSupported: false,
        disableFontFace: true,
      });
      loaded = await task.promise;
      if (stale) void loaded.destroy();
      else setDoc(loaded);
    })().catch((caught: unknown) => !stale && setError(caught));
    return () => {
      stale = true;
      void loaded?.destroy();
    };
  }, [target.id, target.project]);

  useEffect(() => {
    if (!doc || !canvas.current) return;
    let cancelled = false;
    let task: { cancel: () => void; promise: Promise<void> } | undefined;
    (async () => {
      const page = await doc.getPage(pageNumber);
      const width = Math.min(900, canvas.current?.parentElement?.clientWidth ?? 800);
      const base = page.getViewport({ scale: 1 });
      const viewport = page.getViewport({ scale: (width / base.width) * (window.devicePixelRatio || 1) });
      const element = canvas.current;
      if (!element || cancelled) return;
      element.width = viewport.width;
      element.height = viewport.height;
      element.style.width = `${width}px`;
      task = page.render({ canvas: element, viewport });
      await task.promise;
      const content = await page.getTextContent();
      if (!cancelled)
        setText(
          content.items
            .map((item) => ('str' in item ? item.str : ''))
            .join(' ')
            .replace(/\s+/g, ' ')
            .trim(),
        );
    })().catch((caught: unknown) => {
      if (!cancelled && !(caught instanceof Error && caught.name === 'RenderingCancelledException')) setError(caught);
    });
    return () => {
      cancelled = true;
      task?.cancel();
    };
  }, [doc, pageNumber]);

  if (error)
    return (
      <Alert color="red" role="alert" title="Could not show the PDF">
        {describeError(error)}
      </Alert>
    );
  if (!doc) return <LoadingState rows={6} label="Opening the PDF" />;
  return (
    <Stack gap="sm">
      <Group gap="xs">
        <Button size="xs" variant="default" disabled={pageNumber <= 1} onClick={() => setPageNumber((n) => n - 1)}>
          Previous page
        </Button>
        <Text size="sm" aria-live="polite">
          Page {pageNumber} of {doc.numPages}
        </Text>
        <Button size="xs" variant="default" disabled={pageNumber >= doc.numPages} onClick={() => setPageNumber((n) => n + 1)}>
          Next page
        </Button>
      </Group>
      <div>
        <canvas ref={canvas} className={classes.canvas} aria-label={`Page ${pageNumber} of ${target.name}`} role="img" />
      </div>
      {text && (
        <Text size="sm" c="dimmed" data-testid="pdf-text">
          {text}
        </Text>
      )}
    </Stack>
  );
}
