import { Alert, Badge, Code, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { describeError } from '../../ui/describe-error';
import { LoadingState } from '../../ui/states';
import { bamRecordSpans, parseBamHeader } from './bgzf';
import type { FileFormat } from './formats';
import { formatBytes } from './formats';
import { parseDelimited, summarizeFasta, summarizeFastq } from './genomics';
import { headLines, readHead } from './head';
import classes from './viewer.module.css';

export interface ViewTarget {
  id: string;
  project: string;
  name: string;
  size: number;
}

const RECORDS = 100;

function useHead(target: ViewTarget, format: FileFormat, bytes?: number) {
  return useQuery({
    queryKey: ['viewer-head', target.project, target.id, bytes ?? 'default'],
    queryFn: () => readHead(target.id, target.project, target.size, format.gzip, bytes),
    staleTime: 300_000,
    throwOnError: false,
  });
}

function Loading({ error, label }: { error: unknown; label: string }) {
  if (error)
    return (
      <Alert color="red" role="alert" title="Could not read the file">
        {describeError(error)}
      </Alert>
    );
  return <LoadingState rows={6} label={label} />;
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="lg" fw={600}>
        {value}
      </Text>
    </div>
  );
}

function PartialNote({ complete, read, size }: { complete: boolean; read: number; size: number }) {
  if (complete) return null;
  return (
    <Text size="xs" c="dimmed">
      From the first {formatBytes(read)} of {formatBytes(size)}; the rest of the file was not downloaded.
    </Text>
  );
}

export function FastxView({ target, format }: { target: ViewTarget; format: FileFormat }) {
  const head = useHead(target, format);
  if (!head.data) return <Loading error={head.error} label="Reading the sequences" />;
  const text = new TextDecoder().decode(head.data.data);
  const summary = format.kind === 'fastq' ? summarizeFastq(text, head.data.complete) : summarizeFasta(text, head.data.complete);
  const lines = headLines(head.data).slice(0, format.kind === 'fastq' ? 40 : 30);
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 2, sm: 3, md: 6 }}>
        <Stat label={format.kind === 'fastq' ? 'Reads' : 'Sequences'} value={summary.records.toLocaleString()} />
        <Stat label="Bases" value={summary.bases.toLocaleString()} />
        <Stat label="Length" value={summary.minLength === summary.maxLength ? String(summary.minLength) : `${summary.minLength}–${summary.maxLength}`} />
        <Stat label="Mean length" value={summary.meanLength.toFixed(1)} />
        <Stat label="GC" value={`${(summary.gc * 100).toFixed(1)} %`} />
        {summary.meanQuality !== undefined && <Stat label="Mean quality" value={summary.meanQuality.toFixed(1)} />}
      </SimpleGrid>
      <PartialNote complete={head.data.complete} read={head.data.read} size={target.size} />
      <Title order={2} size="h5">
        First records
      </Title>
      <Code block className={classes.mono} data-testid="fastx-head">
        {lines.join('\n')}
      </Code>
    </Stack>
  );
}

export function TabularView({ target, format }: { target: ViewTarget; format: FileFormat }) {
  const head = useHead(target, format, 256 * 1024);
  if (!head.data) return <Loading error={head.error} label="Reading the table" />;
  const text = new TextDecoder().decode(head.data.data);
  const rows = parseDelimited(text, format.delimiter ?? '\t', head.data.complete, 500).filter((row) => !(row[0] ?? '').startsWith('#') || row === undefined);
  const [first, ...rest] = rows;
  const width = Math.max(0, ...rows.map((row) => row.length));
  const looksLikeHeader = format.delimiter === ',' && first !== undefined;
  const header = looksLikeHeader ? first : Array.from({ length: width }, (_, index) => `${index + 1}`);
  const body = looksLikeHeader ? rest : rows;
  return (
    <Stack gap="xs">
      <Text size="sm" c="dimmed">
        {body.length} row{body.length === 1 ? '' : 's'} shown
        {head.data.complete ? '' : ` from the first ${formatBytes(head.data.read)}`}.
      </Text>
      <div className={classes.tableWrap}>
        <Table striped withColumnBorders stickyHeader aria-label="Table preview">
          <Table.Thead>
            <Table.Tr>
              {header.map((cell, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional
                <Table.Th key={index}>{cell}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {body.map((row, rowIndex) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
              <Table.Tr key={rowIndex}>
                {Array.from({ length: width }, (_, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional
                  <Table.Td key={index} title={row[index]}>
                    {row[index] ?? ''}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
    </Stack>
  );
}

export function VcfView({ target, format }: { target: ViewTarget; format: FileFormat }) {
  const head = useHead(target, format);
  const parsed = useQuery({
    queryKey: ['viewer-vcf', target.project, target.id],
    enabled: head.data !== undefined,
    queryFn: async () => {
      const lines = head.data ? headLines(head.data) : [];
      const headerLines = lines.filter((line) => line.startsWith('#'));
      const dataLines = lines.filter((line) => line && !line.startsWith('#')).slice(0, RECORDS);
      const { default: VCFParser } = await import('@gmod/vcf');
      const parser = new VCFParser({ header: headerLines.join('\n'), strict: false });
      const variants = dataLines.map((line) => parser.parseLine(line));
      return { headerLines, samples: parser.samples, variants, fileformat: String(parser.getMetadata('fileformat') ?? '') };
    },
    throwOnError: false,
  });
  if (!head.data || !parsed.data) return <Loading error={head.error ?? parsed.error} label="Reading the variants" />;
  const { headerLines, samples, variants, fileformat } = parsed.data;
  const shownSamples = samples.slice(0, 4);
  return (
    <Stack gap="md">
      <Group gap="xs">
        {fileformat && <Badge variant="light">{fileformat}</Badge>}
        <Badge variant="light" color="gray">
          {samples.length} sample{samples.length === 1 ? '' : 's'}
        </Badge>
        <Badge variant="light" color="gray">
          {headerLines.length} header lines
        </Badge>
      </Group>
      <PartialNote complete={head.data.complete} read={head.data.read} size={target.size} />
      <Title order={2} size="h5">
        First {variants.length} records
      </Title>
      <div className={classes.tableWrap}>
        <Table striped stickyHeader aria-label="Variants">
          <Table.Thead>
            <Table.Tr>
              {['CHROM', 'POS', 'ID', 'REF', 'ALT', 'QUAL', 'FILTER', 'INFO', ...shownSamples].map((name) => (
                <Table.Th key={name}>{name}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {variants.map((variant, index) => {
              const genotypes = shownSamples.length ? variant.GENOTYPES() : {};
              const info = Object.entries(variant.INFO)
                .map(([key, value]) => (value === true || value === null ? key : `${key}=${Array.isArray(value) ? value.join(',') : String(value)}`))
                .join(';');
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: records are positional
                <Table.Tr key={index}>
                  <Table.Td>{variant.CHROM}</Table.Td>
                  <Table.Td>{variant.POS}</Table.Td>
                  <Table.Td>{variant.ID?.join(';') ?? '.'}</Table.Td>
                  <Table.Td>{variant.REF}</Table.Td>
                  <Table.Td>{variant.ALT?.join(',') ?? '.'}</Table.Td>
                  <Table.Td>{variant.QUAL ?? '.'}</Table.Td>
                  <Table.Td>{Array.isArray(variant.FILTER) ? variant.FILTER.join(';') : (variant.FILTER ?? '.')}</Table.Td>
                  <Table.Td title={info}>{info}</Table.Td>
                  {shownSamples.map((sample) => (
                    <Table.Td key={sample}>{genotypes[sample] ?? ''}</Table.Td>
                  ))}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </div>
      <Title order={2} size="h5">
        Header
      </Title>
      <Code block className={classes.mono} data-testid="vcf-header">
        {headerLines.slice(0, 200).join('\n')}
      </Code>
    </Stack>
  );
}

const FLAG_NAMES: [number, string][] = [
  [0x1, 'paired'],
  [0x2, 'proper'],
  [0x4, 'unmapped'],
  [0x10, 'reverse'],
  [0x40, 'read1'],
  [0x80, 'read2'],
  [0x100, 'secondary'],
  [0x400, 'duplicate'],
  [0x800, 'supplementary'],
];

export function BamView({ target, format }: { target: ViewTarget; format: FileFormat }) {
  const parsed = useQuery({
    queryKey: ['viewer-bam', target.project, target.id],
    queryFn: async () => {
      // The header can be large (many references): read more until it is complete, up to 16 MiB.
      for (let bytes = 1024 * 1024; ; bytes *= 4) {
        const head = await readHead(target.id, target.project, target.size, format.gzip, bytes);
        const header = parseBamHeader(head.data);
        if (!header) {
          if (head.complete || bytes >= 16 * 1024 * 1024 || bytes >= target.size) throw new Error('The BAM header is larger than what a preview reads');
          continue;
        }
        const { BamRecord } = await import('@gmod/bam');
        const records = bamRecordSpans(head.data, header.dataStart, RECORDS).map(
          (span) => new BamRecord({ bytes: { byteArray: head.data, start: span.start, end: span.end }, fileOffset: span.start }),
        );
        return { header, records, head };
      }
    },
    throwOnError: false,
  });
  if (!parsed.data) return <Loading error={parsed.error} label="Reading the alignments" />;
  const { header, records, head } = parsed.data;
  const refName = (id: number) => header.references[id]?.name ?? '*';
  return (
    <Stack gap="md">
      <Group gap="xs">
        <Badge variant="light">BAM</Badge>
        <Badge variant="light" color="gray">
          {header.references.length} reference sequence{header.references.length === 1 ? '' : 's'}
        </Badge>
      </Group>
      <PartialNote complete={head.complete} read={head.read} size={target.size} />
      <Title order={2} size="h5">
        Header
      </Title>
      <Code block className={classes.mono} data-testid="bam-header">
        {header.text.split('\n').slice(0, 200).join('\n')}
      </Code>
      <Title order={2} size="h5">
        First {records.length} alignments
      </Title>
      <div className={classes.tableWrap}>
        <Table striped stickyHeader aria-label="Alignments">
          <Table.Thead>
            <Table.Tr>
              {['Read', 'Flags', 'Reference', 'Position', 'MAPQ', 'CIGAR', 'Sequence'].map((name) => (
                <Table.Th key={name}>{name}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {records.map((record) => (
              <Table.Tr key={record.fileOffset}>
                <Table.Td>{record.name}</Table.Td>
                <Table.Td title={String(record.flags)}>
                  {FLAG_NAMES.filter(([bit]) => record.flags & bit)
                    .map(([, name]) => name)
                    .join(', ') || record.flags}
                </Table.Td>
                <Table.Td>{refName(record.ref_id)}</Table.Td>
                <Table.Td>{record.start + 1}</Table.Td>
                <Table.Td>{record.mq ?? '*'}</Table.Td>
                <Table.Td>{record.CIGAR || '*'}</Table.Td>
                <Table.Td className={classes.mono} title={record.seq}>
                  {record.seq}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
    </Stack>
  );
}

/** Text, HTML (sandboxed: no scripts, no same origin) and hex views of a file's head. */
export function TextView({ target, format, html }: { target: ViewTarget; format: FileFormat; html?: boolean }) {
  const head = useHead(target, format);
  if (!head.data) return <Loading error={head.error} label="Reading the file" />;
  const text = new TextDecoder().decode(head.data.data);
  return (
    <Stack gap="xs">
      <PartialNote complete={head.data.complete} read={head.data.read} size={target.size} />
      {html ? (
        <iframe title={`${target.name} (sandboxed)`} sandbox="" srcDoc={text} className={classes.frame} referrerPolicy="no-referrer" />
      ) : (
        <Code block className={classes.mono} data-testid="viewer-text">
          {text}
        </Code>
      )}
    </Stack>
  );
}

export function HexView({ target, format }: { target: ViewTarget; format: FileFormat }) {
  const head = useHead(target, { ...format, gzip: false }, 1024);
  if (!head.data) return <Loading error={head.error} label="Reading the file" />;
  const bytes = head.data.data;
  const lines: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += 16) {
    const chunk = [...bytes.subarray(offset, offset + 16)];
    const hex = chunk.map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
    const ascii = chunk.map((byte) => (byte >= 32 && byte < 127 ? String.fromCharCode(byte) : '.')).join('');
    lines.push(`${offset.toString(16).padStart(8, '0')}  ${hex.padEnd(48)}  ${ascii}`);
  }
  return (
    <Stack gap="xs">
      <Text size="sm" c="dimmed">
        A binary file: its first {formatBytes(bytes.length)} in hexadecimal.
      </Text>
      <Code block className={classes.mono}>
        {lines.join('\n')}
      </Code>
    </Stack>
  );
}
