import { UnstyledButton } from '@mantine/core';
import classes from './DataPage.module.css';
import { type FolderTree as Tree, visibleFolders } from './folder-tree';
import { FolderIcon, ProjectIcon } from './icons';

/** The folder tree (SPEC §3): click a name to open the folder, the arrow to expand or collapse it. */
export function FolderTree({
  tree,
  active,
  projectName,
  onOpen,
  onToggle,
}: {
  tree: Tree;
  active: string;
  projectName: string;
  onOpen: (path: string) => void;
  onToggle: (path: string) => void;
}) {
  return (
    <nav aria-label="Folders">
      <ul className={classes.tree}>
        {visibleFolders(tree).map((entry) => (
          <li
            key={entry.path}
            className={`${classes.treeItem} ${entry.path === active ? classes.treeActive : ''}`}
            style={{ paddingLeft: 4 + entry.level * 14 }}
          >
            <UnstyledButton
              className={classes.treeToggle}
              onClick={() => onToggle(entry.path)}
              aria-label={`${entry.isExpanded ? 'Collapse' : 'Expand'} ${entry.isRootProject ? projectName : entry.name}`}
              disabled={entry.children.length === 0}
              aria-expanded={entry.children.length ? entry.isExpanded : undefined}
            >
              {entry.children.length ? (entry.isExpanded ? '▾' : '▸') : ''}
            </UnstyledButton>
            <UnstyledButton
              className={classes.treeName}
              onClick={() => onOpen(entry.path)}
              title={entry.path}
              aria-current={entry.path === active ? 'location' : undefined}
            >
              {entry.isRootProject ? <ProjectIcon /> : <FolderIcon open={entry.path === active} />}
              <span className={classes.ellipsis}>{entry.isRootProject ? projectName : entry.name}</span>
            </UnstyledButton>
          </li>
        ))}
      </ul>
    </nav>
  );
}
