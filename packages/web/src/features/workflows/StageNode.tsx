import { Badge, Text, Tooltip } from '@mantine/core';
import { Handle, type NodeProps, Position } from '@xyflow/react';
import { memo } from 'react';
import { inHandle, outHandle, type StageNode as StageNodeType } from './graph';
import { describeValue, instanceTypeOf } from './model';
import classes from './WorkflowEditor.module.css';

/** A stage in the graph: its inputs on the left (targets), outputs on the right (sources). */
function StageNodeView({ data, selected }: NodeProps<StageNodeType>) {
  const { stage, info, index, title, titles } = data;
  const nameOf = (id: string) => titles[id] ?? id;
  const instanceType = instanceTypeOf(stage);
  const unboundRequired = (info?.inputSpec ?? []).filter((field) => !field.optional && stage.input[field.name] === undefined);
  return (
    <div className={classes.node} data-selected={selected || undefined} data-stage-id={stage.id} title={`Stage ${index + 1}: ${title}`}>
      <div className={classes.nodeHeader}>
        <Badge size="sm" variant="filled" color="dark" radius="sm" aria-hidden>
          {index + 1}
        </Badge>
        <Text fw={700} size="sm" truncate title={title} className={classes.nodeTitle}>
          {title}
        </Text>
        {unboundRequired.length > 0 && (
          <Tooltip label={`Required inputs without a value: ${unboundRequired.map((field) => field.name).join(', ')}`} withArrow>
            <Badge size="xs" color="orange" variant="light">
              {unboundRequired.length} to set
            </Badge>
          </Tooltip>
        )}
      </div>
      <div className={classes.nodeMeta}>
        <Text size="xs" c="dimmed" truncate title={stage.executable}>
          {info ? `${info.name} · ` : ''}
          {stage.executable}
        </Text>
        <Text size="xs" c="dimmed" truncate>
          Folder {stage.folder ?? 'default'} · {instanceType ?? 'default instance'}
        </Text>
      </div>
      {!info && (
        <Text size="xs" c="red" px="xs" pb={6}>
          The executable cannot be described
        </Text>
      )}
      {(info?.inputSpec ?? []).map((field) => {
        const bound = stage.input[field.name];
        return (
          <div key={`in-${field.name}`} className={classes.field} data-field={`in:${field.name}`}>
            <Handle type="target" position={Position.Left} id={inHandle(field.name)} className={classes.handle} data-class={field.class} />
            <span className={classes.fieldName}>
              {field.name}
              {!field.optional && <span className={classes.required}>*</span>}
            </span>
            <span className={classes.fieldClass}>{field.class}</span>
            {bound !== undefined && (
              <span className={classes.fieldValue} title={describeValue(bound, nameOf)}>
                {describeValue(bound, nameOf)}
              </span>
            )}
          </div>
        );
      })}
      {(info?.outputSpec ?? []).map((field) => (
        <div key={`out-${field.name}`} className={`${classes.field} ${classes.output}`} data-field={`out:${field.name}`}>
          <span className={classes.fieldClass}>{field.class}</span>
          <span className={classes.fieldName}>{field.name}</span>
          <Handle type="source" position={Position.Right} id={outHandle(field.name)} className={classes.handle} data-class={field.class} />
        </div>
      ))}
    </div>
  );
}

export const StageNode = memo(StageNodeView);
