/**
 * One place chooses the QA model: `score` (from its flags) and the explorer's live re-score
 * (from the environment) agree on the default, the key variable and the error without a key.
 */
import {describe, expect, it} from 'vitest';
import {explorerQaChoice, qaModelFrom, QaModelChoiceError} from '../../source/services/qa-models.js';
import {liveQaModel} from '../../source/ui/data/effects.js';
import {explorerAuditModel} from '../../source/services/audit.js';
import {startOpenAiServer} from '../helpers/openai-server.js';

describe('choosing the QA model', () => {
  it('defaults to the lexical baseline in both', async () => {
    expect(qaModelFrom({}, {}).name).toBe('lexical');
    expect((await liveQaModel({})).name).toBe('lexical');
  });

  it('a named model without its key is refused before any call, naming the variable, in both', async () => {
    expect(() => qaModelFrom({model: 'gpt-x'}, {})).toThrow(QaModelChoiceError);
    expect(() => qaModelFrom({model: 'gpt-x'}, {})).toThrow(/needs an API key in \$OPENAI_API_KEY/);
    await expect(liveQaModel({DELTALENS_QA_MODEL: 'gpt-x'})).rejects.toThrow(/needs an API key in \$OPENAI_API_KEY/);
    await expect(liveQaModel({DELTALENS_QA_MODEL: 'gpt-x', DELTALENS_QA_KEY_ENV: 'MY_KEY'})).rejects.toThrow(
      /\$MY_KEY/,
    );
  });

  it('the key variable can be renamed in both, and the model is the one named', async () => {
    expect(qaModelFrom({model: 'gpt-x', apiKeyEnv: 'MY_KEY'}, {MY_KEY: 'k'}).name).toBe('gpt-x');
    expect((await liveQaModel({DELTALENS_QA_MODEL: 'gpt-x', DELTALENS_QA_KEY_ENV: 'MY_KEY', MY_KEY: 'k'})).name).toBe(
      'gpt-x',
    );
    expect(explorerQaChoice({DELTALENS_QA_MODEL: 'gpt-x'})).toEqual({model: 'gpt-x', apiKeyEnv: undefined});
  });

  it("a server of one's own (a base URL that is not OpenAI's) needs no key: a local model server is asked without one", async () => {
    const server = await startOpenAiServer(() => ({answer: 'A'}));
    try {
      const model = qaModelFrom({model: 'local-m', baseUrl: server.url}, {});
      expect((await model.answer('Which? A or B')).text).toBe('A');
      expect(server.calls).toHaveLength(1);
      expect((await liveQaModel({DELTALENS_QA_MODEL: 'local-m', OPENAI_BASE_URL: server.url})).name).toBe('local-m');
      expect(explorerAuditModel({DELTALENS_AUDIT_MODEL: 'local-a', OPENAI_BASE_URL: server.url})).toMatchObject({
        name: 'local-a',
        apiKey: 'no-key',
      });
    } finally {
      await server.close();
    }
    // OpenAI's own endpoint still needs one
    expect(() => qaModelFrom({model: 'gpt-x', baseUrl: 'https://api.openai.com/v1'}, {})).toThrow(/needs an API key/);
  });
});
