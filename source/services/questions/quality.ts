/** The checks every built question gets (ExplainBench §5.4). */
import type {Question} from '../../core/questions/model.js';
import type {Db} from '../../store/db.js';
import {writeTx} from '../../store/db.js';
import {answerTally, ensureExplanation} from '../../store/questions.js';
import {automaticFlags} from '../annotation.js';
import {lexicalModel, type QaModel} from '../qa-models.js';
import {modelName, scoreExplanations} from '../scoring.js';

export interface QualityReport {
  question: string;
  model: string;
  /** a blank explanation must never be answered right (ExplainBench §5.4) */
  blank: {correct: number; n: number};
  /** the question and its options alone, no context: a guessable question is answered right */
  choices_only: {correct: number; n: number};
  /** the lexical baseline on the stored explanations of the instance (word overlap) */
  lexical: {correct: number; n: number};
  /** the automatic flags the question now has (the annotation checks) */
  flags: string[];
}

/**
 * The checks every built question gets (§5.4): scored from a blank explanation with `model`
 * (each effect question against a blank explanation of its agent), from the options alone, and
 * by the lexical baseline on the stored explanations; the answers are stored like any other,
 * so the automatic flags (`deltalens flags`) pick them up.
 */
export async function qualityChecks(db: Db, built: Question[], model: QaModel, samples = 3): Promise<QualityReport[]> {
  writeTx(db, () => {
    for (const q of built)
      ensureExplanation(db, {
        instance: q.instance,
        agent: q.agent ?? '(any agent)',
        kind: 'blank',
        text: '',
        source: 'deltalens questions build (quality check)',
      });
  });
  const lexical = lexicalModel();
  const questions = new Set(built.map(q => q.id));
  await scoreExplanations(db, {model, samples, concurrency: 4, kinds: ['blank'], questions});
  await scoreExplanations(db, {model, samples, concurrency: 4, kinds: ['blank'], questions, choicesOnly: true});
  await scoreExplanations(db, {
    model: lexical,
    samples: 1,
    concurrency: 1,
    kinds: ['original', 'audited', 'custom'],
    questions,
  });
  const out: QualityReport[] = [];
  for (const q of built) {
    out.push({
      question: q.id,
      model: model.name,
      blank: answerTally(db, q.id, model.name, ['blank']),
      choices_only: answerTally(db, q.id, modelName(model, true), ['blank']),
      lexical: answerTally(db, q.id, lexical.name, ['original', 'audited', 'custom']),
      flags: automaticFlags(db, q.id).map(f => f.reason),
    });
  }
  return out;
}
