import { useRuntime } from './runtime';
import classes from './Footer.module.css';

/** The footer (SPEC §2): 56 px. */
export function Footer() {
  const { manifest } = useRuntime();
  return (
    <footer className={classes.footer}>
      <span>Panx {manifest.version ? `v${manifest.version}` : ''}</span>
      <nav className={classes.links} aria-label="Footer">
        <a href="/api-docs">API documentation</a>
      </nav>
      <span className={classes.note}>Open, self-hostable genomics platform</span>
    </footer>
  );
}
