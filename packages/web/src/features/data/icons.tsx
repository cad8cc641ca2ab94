/** Small inline icons (no icon font or emoji: both depend on what the machine has installed). */
const common = { width: 16, height: 16, viewBox: '0 0 16 16', focusable: false } as const;

export function FolderIcon({ open = false }: { open?: boolean }) {
  return (
    <svg {...common} aria-hidden="true">
      <path d="M1.5 3.5h4.2l1.4 1.6h7.4v8.4H1.5z" fill={open ? '#ffe08a' : '#ffd25e'} stroke="#d9a21b" strokeWidth="1" strokeLinejoin="round" />
    </svg>
  );
}

export function FileIcon({ kind = 'file' }: { kind?: string }) {
  const color = kind === 'record' ? '#7950f2' : kind === 'applet' || kind === 'workflow' ? '#12b886' : '#228be6';
  return (
    <svg {...common} aria-hidden="true">
      <path d="M3.5 1.5h6l3 3v10h-9z" fill="white" stroke={color} strokeWidth="1.2" strokeLinejoin="round" />
      <path d="M9.5 1.5v3h3" fill="none" stroke={color} strokeWidth="1.2" strokeLinejoin="round" />
      <path d="M5.5 8h5M5.5 10.5h5" stroke={color} strokeWidth="1" />
    </svg>
  );
}

export function ProjectIcon() {
  return (
    <svg {...common} aria-hidden="true">
      <rect x="1.5" y="2.5" width="13" height="11" rx="2" fill="#e7f5ff" stroke="#228be6" strokeWidth="1.2" />
      <path d="M1.5 6h13" stroke="#228be6" strokeWidth="1.2" />
    </svg>
  );
}
