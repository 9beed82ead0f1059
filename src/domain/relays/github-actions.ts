import Type, { type Static } from 'typebox';
import { clip, type RelayStep } from './relay-step.ts';

/**
 * GitHub's webhooks for Actions, as documented at https://docs.github.com/en/webhooks/webhook-events-and-payloads:
 * `workflow_run` (#workflow_run: action requested, in_progress or completed, with the run's id, attempt, number,
 * workflow name and conclusion) and `workflow_job` (#workflow_job: action queued, waiting, in_progress or completed,
 * with the job's run id, attempt, name and steps). Only what Clarion reads is required; the rest is ignored.
 */
const Repository = Type.Object({ id: Type.Integer(), full_name: Type.String() });

export const WorkflowRunEvent = Type.Object({
  action: Type.String(),
  repository: Repository,
  workflow_run: Type.Object({
    id: Type.Integer(),
    name: Type.Union([Type.String(), Type.Null()]),
    run_number: Type.Integer(),
    run_attempt: Type.Optional(Type.Integer()),
    conclusion: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  }),
});

const Step = Type.Object({ name: Type.String(), status: Type.String() });

export const WorkflowJobEvent = Type.Object({
  action: Type.String(),
  repository: Repository,
  workflow_job: Type.Object({
    run_id: Type.Integer(),
    run_attempt: Type.Optional(Type.Integer()),
    name: Type.String(),
    steps: Type.Optional(Type.Array(Step)),
  }),
});

/** A run's activity: one per run and attempt (a re-run is a new attempt, so it gets an activity of its own). */
function runKey(repositoryId: number, runId: number, attempt: number | undefined): string {
  return `github-${repositoryId}-${runId}-${attempt ?? 1}`;
}

/** What a run's conclusion reads as on the lock screen (the values of workflow_run.conclusion in GitHub's docs). */
const CONCLUSIONS: Record<string, string> = {
  success: 'Succeeded',
  failure: 'Failed',
  cancelled: 'Cancelled',
  timed_out: 'Timed out',
  skipped: 'Skipped',
  action_required: 'Action required',
  neutral: 'Done',
  stale: 'Stale',
  startup_failure: 'Failed to start',
};

/**
 * A `workflow_run` event as a `progress` activity: `requested` or `in_progress` starts the run's activity (once:
 * a late delivery never starts a finished run again), titled "owner/repo: Workflow #42"; `completed` ends it with
 * the conclusion, full when it succeeded. Other actions leave it.
 */
export function workflowRunStep(event: Static<typeof WorkflowRunEvent>): RelayStep {
  const run = event.workflow_run;
  const key = runKey(event.repository.id, run.id, run.run_attempt);
  if (event.action === 'completed') {
    const conclusion = run.conclusion ?? 'completed';
    const status = CONCLUSIONS[conclusion] ?? clip(conclusion, 200);
    return {
      key,
      start: null,
      startOnce: true,
      change: { event: 'end', fields: conclusion === 'success' ? { progress: 1, status } : { status } },
    };
  }
  if (event.action !== 'requested' && event.action !== 'in_progress')
    return { key, start: null, startOnce: true, change: null };
  const title = clip(`${event.repository.full_name}: ${run.name ?? 'Workflow'} #${run.run_number}`, 100);
  const status = event.action === 'requested' ? 'Queued' : 'Running';
  return {
    key,
    start: { template: 'progress', fields: { title, progress: 0, status } },
    startOnce: true,
    change: null,
  };
}

/**
 * A `workflow_job` event as an update of its run's active activity: progress is the share of the job's steps
 * completed, and the status line names the job and its step under way ("build · Run tests"). A job's events never
 * start the activity (its run's do), and after the run ended they change nothing.
 */
export function workflowJobStep(event: Static<typeof WorkflowJobEvent>): RelayStep {
  const job = event.workflow_job;
  const key = runKey(event.repository.id, job.run_id, job.run_attempt);
  const steps = job.steps ?? [];
  const done = steps.filter((step) => step.status === 'completed').length;
  const current = steps.find((step) => step.status === 'in_progress');
  const doing =
    event.action === 'completed'
      ? 'done'
      : event.action === 'waiting'
        ? 'waiting for approval'
        : event.action === 'queued'
          ? 'queued'
          : (current?.name ?? 'running');
  const fields = {
    progress: steps.length === 0 ? 0 : Math.round((done / steps.length) * 100) / 100,
    status: clip(`${job.name} · ${doing}`, 200),
  };
  return { key, start: null, startOnce: true, change: { event: 'update', fields } };
}
