import { describe, expect, it } from 'vitest';
import { workflowJobStep, workflowRunStep } from '../../../src/domain/relays/github-actions.ts';

const repository = { id: 7, full_name: 'octo-org/shop' };
const run = (action: string, conclusion: string | null = null) =>
  workflowRunStep({
    action,
    repository,
    workflow_run: { id: 99, name: 'CI', run_number: 12, run_attempt: 3, conclusion },
  });
const job = (action: string, steps?: Array<{ name: string; status: string }>) =>
  workflowJobStep({ action, repository, workflow_job: { run_id: 99, run_attempt: 3, name: 'test', steps } });

describe('GitHub Actions webhooks as steps of a run’s progress activity', () => {
  it('keys a run by repository, run and attempt, for its run and job events alike', () => {
    expect(run('requested').key).toBe('github-7-99-3');
    expect(job('queued').key).toBe('github-7-99-3');
  });

  it('starts on requested and in_progress only, once; a completed run ends with its conclusion', () => {
    expect(run('requested')).toMatchObject({
      start: { template: 'progress', fields: { title: 'octo-org/shop: CI #12', progress: 0, status: 'Queued' } },
      startOnce: true,
      change: null,
    });
    expect(run('in_progress').start?.fields.status).toBe('Running');
    expect(run('completed', 'success').change).toEqual({
      event: 'end',
      fields: { progress: 1, status: 'Succeeded' },
    });
    expect(run('completed', 'timed_out').change).toEqual({ event: 'end', fields: { status: 'Timed out' } });
    expect(run('completed', 'something_new').change?.fields).toEqual({ status: 'something_new' });
    expect(run('deleted')).toMatchObject({ start: null, change: null });
  });

  it('moves the progress by the job’s completed steps and names the step under way', () => {
    const steps = [
      { name: 'Set up job', status: 'completed' },
      { name: 'Build', status: 'in_progress' },
      { name: 'Test', status: 'queued' },
    ];
    expect(job('in_progress', steps)).toMatchObject({
      start: null,
      change: { event: 'update', fields: { progress: 0.33, status: 'test · Build' } },
    });
    expect(job('waiting').change?.fields).toEqual({ progress: 0, status: 'test · waiting for approval' });
    expect(
      job(
        'completed',
        steps.map((step) => ({ ...step, status: 'completed' })),
      ).change?.fields,
    ).toEqual({
      progress: 1,
      status: 'test · done',
    });
  });
});
