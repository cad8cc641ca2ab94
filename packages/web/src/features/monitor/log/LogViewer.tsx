import { ActionIcon, Badge, Button, Chip, Group, Loader, Switch, Text, TextInput, Tooltip } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, memo, type RefObject, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { api } from '../../../lib/api';
import { FailureReportModal } from '../report/FailureReportModal';
import { LogBuffer, type LogMessage } from './log-buffer';
import { type LogStream as LogStreamType, LogStream, logSocketUrl, type StreamState } from './log-stream';
import { LogView, splitMatches } from './log-view';
import classes from './LogViewer.module.css';

export interface LogViewerProps {
  /** The job whose log is shown (`job-xxxx`). */
  jobId: string;
  /** One try of the job (default: its current try). */
  tryNumber?: number;
  /** The project the job is viewed from; kept in the download's name. */
  project?: string;
  /** Height of the viewer (CSS length or pixels), default 480. */
  height?: number | string;
  /** Offer "Report a problem" (the FailureReportModal for this job) in the toolbar; default true. */
  reportProblem?: boolean;
  /** Called once the log has ended (END_LOG: the job reached a final state), e.g. to refresh the job's details at once. */
  onEnded?: () => void;
}

const ROW_HEIGHT = 20;
const PAGE = 10_000;
/** Above this many lines, new lines are painted at most every REPAINT_BIG_MS. */
const BIG_LOG = 100_000;
const REPAINT_BIG_MS = 200;

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

function timeOf(timestamp: number): string {
  if (!timestamp) return '--:--:--';
  const date = new Date(timestamp);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

interface RowProps {
  buffer: LogBuffer;
  index: number;
  start: number;
  query: string;
  current: boolean;
  gutterWidth: number;
}

/** One line: number, time, level and the message as text (React escapes it: a log line is never HTML). */
const LogRow = memo(function LogRow({ buffer, index, start, query, current, gutterWidth }: RowProps) {
  const level = buffer.level(index);
  const msg = buffer.msg(index);
  const system = buffer.source(index) === 'SYSTEM';
  return (
    <div
      className={`${classes.row} ${current ? classes.current : ''} ${system ? classes.system : ''}`}
      style={{ transform: `translateY(${start}px)` }}
      data-line={index + 1}
      data-level={level}
    >
      <span className={classes.gutter} style={{ width: gutterWidth }}>
        {index + 1}
      </span>
      <span className={classes.time}>{timeOf(buffer.timestamp(index))}</span>
      <span className={`${classes.level} ${classes[`lvl-${level}`] ?? ''}`}>{level}</span>
      <span className={`${classes.msg} ${classes[`msg-${level}`] ?? ''}`} data-msg>
        {query
          ? splitMatches(msg, query).map((part, i) =>
              part.match ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: parts of one immutable line
                <mark key={i} className={classes.mark}>
                  {part.text}
                </mark>
              ) : (
                // biome-ignore lint/suspicious/noArrayIndexKey: parts of one immutable line
                <span key={i}>{part.text}</span>
              ),
            )
          : msg}
      </span>
    </div>
  );
});

interface LogRowsProps {
  buffer: LogBuffer;
  view: LogView;
  /** Rows shown and the buffer's version: a change re-renders the rows (the view itself is mutable). */
  count: number;
  version: number;
  query: string;
  currentRow: number | undefined;
  follow: boolean;
  gutterWidth: number;
  scrollRef: RefObject<HTMLDivElement | null>;
  onScroll: () => void;
  label: string;
}

/**
 * The scrolling rows, apart from the toolbar: scrolling re-renders only this (TanStack Virtual keeps
 * the rows in view plus a few), never the toolbar's inputs.
 */
const LogRows = memo(function LogRows({ buffer, view, count, version, query, currentRow, follow, gutterWidth, scrollRef, onScroll, label }: LogRowsProps) {
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  // Follow: keep the newest line in view while the reader is at the bottom.
  useLayoutEffect(() => {
    void version;
    const element = scrollRef.current;
    if (follow && element && count > 0) element.scrollTop = element.scrollHeight;
  }, [follow, count, version, scrollRef]);
  // ... and when the viewport itself changes size (the toolbar wrapping, the window resized), which
  // fires no render here.
  useEffect(() => {
    const element = scrollRef.current;
    if (!follow || !element) return;
    const observer = new ResizeObserver(() => {
      element.scrollTop = element.scrollHeight;
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [follow, scrollRef]);
  return (
    <div
      ref={scrollRef}
      className={classes.scroller}
      onScroll={onScroll}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so the keyboard can scroll it
      tabIndex={0}
      role="log"
      aria-live="off"
      aria-label={label}
      data-testid="log-scroller"
    >
      <div className={classes.rows} style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const index = view.lineAt(item.index);
          if (index < 0) return null;
          return (
            <LogRow key={index} buffer={buffer} index={index} start={item.start} query={query} current={item.index === currentRow} gutterWidth={gutterWidth} />
          );
        })}
      </div>
    </div>
  );
});

function statusBadge(state: StreamState) {
  switch (state.status) {
    case 'history':
      return (
        <Badge color="gray" variant="light" leftSection={<Loader size={10} color="gray" />}>
          Loading
        </Badge>
      );
    case 'live':
      return (
        <Badge color="green" variant="light" data-testid="log-live">
          Live
        </Badge>
      );
    case 'reconnecting':
      return (
        <Tooltip label={`${state.message ?? 'The connection dropped'}; trying again in ${Math.ceil((state.retryInMs ?? 0) / 1000)} s`}>
          <Badge color="orange" variant="light" leftSection={<Loader size={10} color="orange" />}>
            Reconnecting
          </Badge>
        </Tooltip>
      );
    case 'ended':
      return (
        <Badge color="blue" variant="light">
          Complete
        </Badge>
      );
    case 'error':
      return (
        <Badge color="red" variant="light">
          Unavailable
        </Badge>
      );
  }
}

/**
 * The live log of a job: every line with its number, time and level, coloured by level; filter by
 * level, search with highlighted matches (Enter / Shift+Enter for next and previous), follow mode that
 * keeps the newest line in view while the reader is at the bottom, download of the whole log as text.
 * Rows are virtualised (TanStack Virtual), so a million lines scroll like ten. Lines come from the
 * REST `getLog` pages, then the log websocket, which resumes after the last line held when it drops.
 */
export function LogViewer({ jobId, tryNumber, project, height = 480, reportProblem = true, onEnded }: LogViewerProps) {
  const [reporting, setReporting] = useState(false);
  const buffer = useMemo(() => {
    void jobId;
    void tryNumber;
    return new LogBuffer();
  }, [jobId, tryNumber]);
  const [levels, setLevels] = useState<string[] | undefined>(undefined);
  const [queryInput, setQueryInput] = useState('');
  const [query, setQuery] = useState('');
  const view = useMemo(() => new LogView(buffer), [buffer]);
  const [, setVersion] = useState(0);
  const [state, setState] = useState<StreamState>({ status: 'history', reconnects: 0 });
  const [follow, setFollow] = useState(true);
  const [currentMatch, setCurrentMatch] = useState(-1);
  const [unseen, setUnseen] = useState(0);
  const scrollRef = useRef<HTMLDivElement>(null);
  const streamRef = useRef<LogStreamType | undefined>(undefined);
  const followRef = useRef(follow);
  followRef.current = follow;
  const frame = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // The stream: one per job and try.
  useEffect(() => {
    const client = api();
    let lastPaint = 0;
    const paint = () => {
      frame.current = 0;
      lastPaint = performance.now();
      const before = view.count;
      if (view.sync()) {
        if (!followRef.current) setUnseen((n) => n + (view.count - before));
        setVersion((v) => v + 1);
      }
    };
    // New lines are painted on the next frame; on a big log (the virtualiser re-measures every row when
    // the count changes) at most every REPAINT_BIG_MS, well inside the 500 ms from print to screen.
    const refresh = () => {
      if (frame.current || timer.current) return;
      const wait = buffer.length > BIG_LOG ? REPAINT_BIG_MS - (performance.now() - lastPaint) : 0;
      if (wait > 0) {
        timer.current = setTimeout(() => {
          timer.current = undefined;
          frame.current = requestAnimationFrame(paint);
        }, wait);
      } else {
        frame.current = requestAnimationFrame(paint);
      }
    };
    const stream = new LogStream({
      url: logSocketUrl(client.baseUrl, jobId),
      token: () => client.token,
      tryNumber,
      buffer,
      createSocket: (url) => new WebSocket(url),
      loadPage: async (starting) => {
        const page = await client.call('job-xxxx/getLog', jobId, {
          limit: PAGE,
          ...(tryNumber !== undefined ? { try: tryNumber } : {}),
          ...(starting !== undefined ? { starting } : {}),
        });
        return { messages: page.messages as LogMessage[], next: page.next };
      },
      onLines: refresh,
      onState: setState,
    });
    streamRef.current = stream;
    stream.start();
    return () => {
      stream.stop();
      if (frame.current) cancelAnimationFrame(frame.current);
      frame.current = 0;
      clearTimeout(timer.current);
      timer.current = undefined;
      streamRef.current = undefined;
    };
  }, [buffer, view, jobId, tryNumber]);

  // The log ends when the job does: the page need not wait for its next poll to say so.
  const ended = state.status === 'ended';
  const onEndedRef = useRef(onEnded);
  onEndedRef.current = onEnded;
  useEffect(() => {
    if (ended) onEndedRef.current?.();
  }, [ended]);

  useEffect(() => {
    view.setLevels(levels ? new Set(levels) : undefined);
    setCurrentMatch(-1);
    setVersion((v) => v + 1);
  }, [view, levels]);

  useEffect(() => {
    const timer = setTimeout(() => setQuery(queryInput.trim()), 150);
    return () => clearTimeout(timer);
  }, [queryInput]);

  useEffect(() => {
    if (view.setQuery(query)) {
      setCurrentMatch(-1);
      setVersion((v) => v + 1);
    }
  }, [view, query]);

  const count = view.count;

  // Follow stops only when the reader scrolls up. A scroll event that merely finds the view short of
  // the bottom (the viewport shrank after the last scroll, lines arrived in between) leaves it on.
  const lastScrollTop = useRef(0);
  const onScroll = useCallback(() => {
    const element = scrollRef.current;
    if (!element) return;
    const top = element.scrollTop;
    const scrolledUp = top < lastScrollTop.current;
    lastScrollTop.current = top;
    const atBottom = top + element.clientHeight >= element.scrollHeight - ROW_HEIGHT * 2;
    if (atBottom) {
      setFollow(true);
      setUnseen(0);
    } else if (scrolledUp) {
      setFollow(false);
    }
  }, []);

  const jumpToLatest = useCallback(() => {
    setFollow(true);
    setUnseen(0);
    const element = scrollRef.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, []);

  const matches = view.matches;
  const goTo = useCallback(
    (direction: 1 | -1, from = currentMatch) => {
      let next: number;
      if (from < 0) {
        const first = Math.floor((scrollRef.current?.scrollTop ?? 0) / ROW_HEIGHT);
        next = view.firstMatchFrom(first);
        if (direction === -1 && next >= 0) next = view.step(next, -1);
      } else {
        next = view.step(from, direction);
      }
      setCurrentMatch(next);
      const row = view.matches[next];
      if (row !== undefined) {
        setFollow(false);
        const element = scrollRef.current;
        if (element) element.scrollTop = Math.max(0, row * ROW_HEIGHT - (element.clientHeight - ROW_HEIGHT) / 2);
      }
    },
    [currentMatch, view],
  );

  const onSearchKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      const typed = queryInput.trim();
      if (typed !== query) {
        // Enter searches at once (without waiting for the typing pause) and goes to the first match.
        setQuery(typed);
        if (view.setQuery(typed)) {
          goTo(event.shiftKey ? -1 : 1, -1);
          return;
        }
      }
      goTo(event.shiftKey ? -1 : 1);
    } else if (event.key === 'Escape') {
      setQueryInput('');
    }
  };

  const download = useCallback(() => {
    const blob = new Blob([buffer.toText()], { type: 'text/plain;charset=utf-8' });
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = `${project ? `${project}-` : ''}${jobId}${tryNumber !== undefined ? `-try${tryNumber}` : ''}.log`;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }, [buffer, jobId, tryNumber, project]);

  const levelCounts = buffer.levelCounts();
  const presentLevels = levelCounts.map((entry) => entry.level);
  const selectedLevels = levels ?? presentLevels;
  const currentRow = currentMatch >= 0 ? matches[currentMatch] : undefined;
  const gutterWidth = Math.max(3, String(buffer.length).length) * 8 + 18;

  return (
    <div
      className={classes.root}
      data-testid="log-viewer"
      data-job={jobId}
      data-lines={buffer.length}
      data-status={state.status}
      data-reconnects={state.reconnects}
    >
      <Group className={classes.toolbar} justify="space-between" gap="xs" wrap="wrap">
        <Group gap="xs" wrap="wrap">
          {statusBadge(state)}
          <Text size="xs" c="dimmed" data-testid="log-count">
            {count === buffer.length
              ? `${buffer.length.toLocaleString('en')} lines`
              : `${count.toLocaleString('en')} of ${buffer.length.toLocaleString('en')} lines`}
          </Text>
          {presentLevels.length > 0 && (
            <Chip.Group
              multiple
              value={selectedLevels}
              onChange={(value) =>
                setLevels(value.length === presentLevels.length && presentLevels.every((level) => value.includes(level)) ? undefined : value)
              }
            >
              <Group gap={4} aria-label="Levels shown" role="group">
                {levelCounts.map(({ level, count: n }) => (
                  <Chip
                    key={level}
                    value={level}
                    size="xs"
                    variant="light"
                    color={level === 'STDERR' || level === 'ERROR' ? 'red' : level === 'WARNING' ? 'yellow' : 'blue'}
                  >
                    {level} {n.toLocaleString('en')}
                  </Chip>
                ))}
              </Group>
            </Chip.Group>
          )}
        </Group>
        <Group gap={6} wrap="wrap">
          <TextInput
            size="xs"
            placeholder="Search the log"
            aria-label="Search the log"
            value={queryInput}
            onChange={(event) => setQueryInput(event.currentTarget.value)}
            onKeyDown={onSearchKey}
            style={{ flex: '1 1 150px', maxWidth: 240 }}
            rightSectionWidth={query ? 64 : undefined}
            rightSection={
              query ? (
                <Text size="xs" c="dimmed" data-testid="log-match-count" aria-live="polite">
                  {matches.length ? `${currentMatch >= 0 ? currentMatch + 1 : 0}/${matches.length.toLocaleString('en')}` : '0/0'}
                </Text>
              ) : null
            }
          />
          <ActionIcon variant="default" size="md" aria-label="Previous match" onClick={() => goTo(-1)} disabled={!matches.length}>
            ↑
          </ActionIcon>
          <ActionIcon variant="default" size="md" aria-label="Next match" onClick={() => goTo(1)} disabled={!matches.length}>
            ↓
          </ActionIcon>
          <Switch size="xs" label="Follow" checked={follow} onChange={(event) => (event.currentTarget.checked ? jumpToLatest() : setFollow(false))} />
          <Button size="xs" variant="default" onClick={download} disabled={buffer.length === 0}>
            Download
          </Button>
          {reportProblem && (
            <Button size="xs" variant="subtle" color="red" onClick={() => setReporting(true)}>
              Report a problem
            </Button>
          )}
        </Group>
      </Group>
      <div className={classes.body} style={{ height }}>
        <LogRows
          buffer={buffer}
          view={view}
          count={count}
          version={buffer.version}
          query={query}
          currentRow={currentRow}
          follow={follow}
          gutterWidth={gutterWidth}
          scrollRef={scrollRef}
          onScroll={onScroll}
          label={`Log of ${jobId}`}
        />
        {count === 0 && (
          <div className={classes.overlay} data-testid="log-empty">
            {state.status === 'history'
              ? 'Loading the log…'
              : state.status === 'error'
                ? (state.message ?? 'The log could not be read')
                : buffer.length > 0
                  ? 'No line of the chosen levels'
                  : state.status === 'ended'
                    ? 'This job wrote no log'
                    : 'Waiting for the first line…'}
          </div>
        )}
        {!follow && count > 0 && (
          <Button className={classes.jump} size="xs" radius="xl" onClick={jumpToLatest} data-testid="log-jump">
            {unseen > 0 ? `Jump to latest (${unseen.toLocaleString('en')} new)` : 'Jump to latest'}
          </Button>
        )}
      </div>
      {reportProblem && (
        <FailureReportModal
          opened={reporting}
          onClose={() => setReporting(false)}
          execution={{ id: jobId }}
          {...(tryNumber !== undefined ? { tryNumber } : {})}
        />
      )}
      {state.status === 'error' && count > 0 && (
        <Text className={classes.footer} c="red" role="alert">
          {state.message}
        </Text>
      )}
    </div>
  );
}
