import { create } from 'qrcode';
import { useMemo } from 'react';

/**
 * A QR code drawn as one SVG path from the `qrcode` library's module matrix: no canvas, no HTML strings,
 * nothing the Content-Security-Policy has to allow.
 */
export function QrCode({ text, size = 200, label }: { text: string; size?: number; label: string }) {
  const { path, dimension } = useMemo(() => {
    const matrix = create(text, { errorCorrectionLevel: 'M' }).modules;
    const quiet = 4;
    let d = '';
    for (let row = 0; row < matrix.size; row++) {
      for (let col = 0; col < matrix.size; col++) {
        if (matrix.get(row, col)) d += `M${col + quiet} ${row + quiet}h1v1h-1z`;
      }
    }
    return { path: d, dimension: matrix.size + 2 * quiet };
  }, [text]);
  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${dimension} ${dimension}`}
      width={size}
      height={size}
      shapeRendering="crispEdges"
      style={{ background: '#fff', display: 'block' }}
      data-testid="otp-qr"
    >
      <path d={path} fill="#000" />
    </svg>
  );
}
