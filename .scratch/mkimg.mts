import {makeImage} from '../test/helpers/image.ts';
makeImage('/tmp/img1', '/work/main/tracer/tests/fixtures/runners');
console.log('ok');
