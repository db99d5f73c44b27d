import type {WatchValue} from '../services/stepper.js';
import type {ExplorerData} from './data/index.js';
import type {Screen} from './screens/index.js';
import type {Intent} from './screens/types.js';
import {stepperScreen} from './screens/stepper/keys.js';

/** What the runner hands back. `uid` names the screen the intent came from: a result for a
 * screen that has been closed is dropped. */
export type Result =
  | {type: 'status'; uid: number; text: string}
  /** stored data changed: every screen reads it again */
  | {type: 'changed'}
  /** a long job started (+1) or ended (-1): Ctrl+C stops those running before it quits */
  | {type: 'job'; label: string; change: 1 | -1}
  | {type: 'update'; uid: number; update: (screen: Screen) => Screen}
  /** screens opened over the screen `uid` (dropped when it is no longer on top) */
  | {type: 'push'; uid: number; screens: Screen[]};

export interface RunnerContext {
  data: ExplorerData;
  clipboard: (text: string) => void;
  /** what y copies on the screen shown now */
  copyText: () => string | null;
  /** runs fn with the terminal out of raw mode (an editor takes it over) */
  suspend: <T>(fn: () => T) => T;
}

const stored = (error: unknown) => `not stored: ${(error as Error).message}`;

export function runIntent(intent: Intent, uid: number, ctx: RunnerContext, done: (result: Result) => void): void {
  const status = (text: string) => done({type: 'status', uid, text});
  const {data} = ctx;
  // a write whose message is the status; every screen reads the store again
  const store = (write: () => string) => {
    try {
      status(write());
    } catch (error) {
      status(stored(error));
    }
    done({type: 'changed'});
  };
  switch (intent.kind) {
    case 'copy': {
      const text = ctx.copyText();
      if (!text) return status('nothing to copy here');
      ctx.clipboard(text);
      return status(`copied: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`);
    }
    case 'setStage':
      return store(() => data.effects.setStage(intent.trajectory, intent.idx, intent.stage));
    case 'flag':
      return store(() => data.effects.setFlag(intent.question, intent.verdict, intent.note));
    case 'rescore': {
      status('re-scoring…');
      void data.effects
        .rescore(
          intent.question,
          intent.explanation,
          (n, total) => status(`re-scoring: ${n}/${total}`),
          intent.fresh,
          intent.model,
        )
        .then(r => {
          const name = `${r.modelName}${r.modelName === 'lexical' ? ' (baseline)' : ''}`;
          status(
            r.done === 0 && r.failed === 0 && r.cached > 0
              ? `${name}: all ${r.cached} samples are already stored — R asks the model 5 more times`
              : `${name}: ${r.done} new answers, ${r.cached} already stored, ${r.failed} failed${r.errors[0] ? ` (${r.errors[0]})` : ''}`,
          );
          done({type: 'changed'});
        })
        .catch((e: Error) => status(`re-score failed: ${e.message}`));
      return;
    }
    case 'edit': {
      const edited = ctx.suspend(() => data.effects.edit(intent.text));
      if (edited.error) return status(edited.error);
      if (edited.text === null) return status('unchanged: nothing saved');
      try {
        const id = data.effects.saveCustom(intent.instance, intent.agent, edited.text);
        done({type: 'changed'});
        done({type: 'update', uid, update: s => (s.kind === 'question' ? {...s, explanationId: id} : s)});
        status(`saved as custom explanation #${id}; r re-scores it`);
      } catch (error) {
        status(stored(error));
      }
      return;
    }
    case 'review':
      return store(() => data.effects.review(intent.question, intent.action, intent.note));
    case 'editQuestion': {
      const edited = ctx.suspend(() => data.effects.editQuestion(intent.question));
      if (edited.error) return status(edited.error);
      if (edited.text === null) return status('unchanged: nothing saved');
      status('re-validating the edit…');
      void data.effects
        .saveQuestionEdit(intent.question, edited.text, detail => status(`re-validating: ${detail}`))
        .then(r => {
          if (r.saved) {
            status(
              `edit saved: ${r.checks.filter(c => c.status === 'valid').length} changed choice(s) re-validated${r.ran ? ' by running them' : ''}`,
            );
            done({type: 'changed'});
          } else
            status(
              r.problems[0] === 'unchanged: nothing to save'
                ? 'unchanged: nothing saved'
                : `edit NOT saved — ${r.problems.join('; ')} (E opens your edit again)`,
            );
        })
        .catch((e: Error) => status(`edit NOT saved — ${e.message} (E opens your edit again)`));
      return;
    }
    case 'openEvidence': {
      // the trace step a claim's verdict rests on, in the stepper
      const model = data.traces.stepper(intent.pair);
      if ('error' in model) return status(model.error);
      const which = intent.side === 'buggy' ? 'b' : 'p';
      const exact = model.rows.findIndex(r => r[which]?.seq === intent.seq);
      const row = exact >= 0 ? exact : model.rows.findIndex(r => (r[which]?.seq ?? -1) > intent.seq);
      done({
        type: 'push',
        uid,
        screens: [
          {
            ...stepperScreen(intent.pair, Math.max(0, row)),
            message: `claim ${intent.text}: the ${intent.side} side's step ${intent.seq}${exact < 0 ? ' (the nearest aligned row)' : ''}`,
          },
        ],
      });
      return;
    }
    case 'startAudit': {
      status('auditing the explanation: starting… (Ctrl+C stops it, keeping what is done)');
      done({type: 'job', label: 'audit', change: 1});
      void data.effects
        .startAudit(intent.target, text => {
          status(`auditing: ${text} (Ctrl+C stops it)`);
          // the stored transcript grew: an open audit screen (and a's choice of audit) reads it again
          done({type: 'changed'});
        })
        .finally(() => done({type: 'job', label: 'audit', change: -1}))
        .then(a => {
          done({type: 'changed'});
          done({type: 'push', uid, screens: [{kind: 'audit', id: a.id, scroll: 0}]});
          status(`audit #${a.id} ${a.status}${a.reason ? `: ${a.reason}` : ''}`);
        })
        .catch((e: Error) => status(`audit not started: ${e.message}`));
      return;
    }
    case 'cancelJobs':
      data.effects.cancelJobs();
      return;
    case 'findRow': {
      const model = data.traces.stepper(intent.pair);
      if ('error' in model) return status(model.error);
      const found = model.findRow(intent.text, intent.from);
      const row = found < 0 ? model.findRow(intent.text, 0) : found;
      const message =
        row < 0
          ? `"${intent.text}" is not named in any row`
          : found < 0
            ? `"${intent.text}": wrapped to the start`
            : null;
      return done({
        type: 'update',
        uid,
        update: s => (s.kind === 'stepper' ? {...s, row: row < 0 ? s.row : row, message} : s),
      });
    }
    case 'live': {
      const key = (expr: string) => `${intent.row}\0${expr}`;
      const put = (values: WatchValue[]) =>
        done({
          type: 'update',
          uid,
          update: s =>
            s.kind === 'stepper'
              ? {...s, live: {...s.live, ...Object.fromEntries(values.map(v => [key(v.expr), v]))}}
              : s,
        });
      put(
        intent.exprs.map(expr => ({
          expr,
          source: 'unavailable' as const,
          note: 'running deltatrace eval on both sides…',
        })),
      );
      const model = data.traces.stepper(intent.pair);
      if ('error' in model) return status(model.error);
      void data.effects
        .liveWatch(model, intent.row, intent.exprs)
        .then(put, (e: Error) => status(`live re-run failed: ${e.message}`));
      return;
    }
  }
}
