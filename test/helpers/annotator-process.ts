// One annotator labelling every item of a database, the way the annotate screen stores labels
// (one short write per label); used to run two people at once against one file.
import {getQuestion} from '../../source/store/questions.js';
import {openDb} from '../../source/store/db.js';
import {saveAnnotation, setRationale} from '../../source/store/annotations.js';
import {annotationItems} from '../../source/services/annotation.js';

const [file, annotator, rounds] = process.argv.slice(2) as [string, string, string];
const db = openDb(file);
const items = annotationItems(db);
let saved = 0;
for (let r = 0; r < Number(rounds); r += 1) {
  for (const it of items) {
    const q = getQuestion(db, it.question)!;
    const letter = q.choices[(r + saved) % q.choices.length]!.label;
    const id = saveAnnotation(db, {
      question: it.question,
      explanation: it.explanation,
      annotator,
      letters: q.type === 'e2e_effect' ? [letter, letter] : [letter],
      seconds: 1,
    });
    setRationale(db, id, `${annotator} round ${r}`);
    saved += 1;
  }
}
db.close();
console.log(JSON.stringify({annotator, items: items.length, saved}));
