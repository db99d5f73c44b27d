import {Text} from 'ink';
import {useMemo} from 'react';
import {fit} from '../../../core/text/sanitize.js';
import {EMPTY_SIDE} from '../../../services/stepper.js';
import {ScreenFrame} from '../../components/frame.js';
import type {Env} from '../types.js';
import {BINDINGS, type StepperScreen} from './keys.js';
import {deltaLine, StepperBody, stepperTitle} from './view.js';

/** The pair's aligned rows (opened once per pair), the two sides at the row, the watches. */
function useStepper(s: StepperScreen, env: Env) {
  const {data} = env;
  const opened = useMemo(() => data.traces.stepper(s.pair), [data, s.pair]);
  const model = 'error' in opened ? null : opened;
  const depths = useMemo(() => model?.rows.map(r => r.depth) ?? [], [model]);
  const sides = useMemo(
    () =>
      model?.rows.length ? {b: model.view(s.row, 'b'), p: model.view(s.row, 'p')} : {b: EMPTY_SIDE, p: EMPTY_SIDE},
    [model, s.row],
  );
  const watches = useMemo(
    () => (model ? s.watches.map(expr => s.live[`${s.row}\0${expr}`] ?? model.watchRecorded(expr, s.row)) : []),
    [model, s.watches, s.row, s.live],
  );
  return {error: 'error' in opened ? opened.error : null, model, depths, sides, watches};
}

export function StepperComponent({screen: s, env}: {screen: StepperScreen; env: Env}) {
  const {width, bodyHeight, theme} = env;
  const {error, model, depths, sides, watches} = useStepper(s, env);
  env.report({
    uid: s.uid!,
    total: model?.rows.length ?? 0,
    page: bodyHeight,
    depths,
    deltaRow: model?.deltaRow ?? -1,
    copy: () => {
      const side = sides.b.present ? sides.b : sides.p;
      return side.present && side.line !== null ? `${side.file}:${side.line}` : null;
    },
  });
  const title = `Trace stepper · pair #${s.pair}`;
  if (!model)
    return (
      <ScreenFrame
        env={env}
        scope="stepper"
        bindings={BINDINGS}
        title={title}
        subheader={<Text> </Text>}
        body={<Text color={theme.bad}>{error ?? 'not found'}. Esc goes back.</Text>}
      />
    );
  return (
    <ScreenFrame
      env={env}
      scope="stepper"
      bindings={BINDINGS}
      title={title}
      subheader={
        <Text wrap="truncate-end">
          <Text bold wrap="truncate-end">
            {fit(stepperTitle(model), width)}
          </Text>
          <Text color={theme.muted}> · {deltaLine(model)}</Text>
        </Text>
      }
      body={
        <StepperBody
          model={model}
          screen={s}
          view={sides}
          watches={watches}
          width={width}
          height={bodyHeight}
          theme={theme}
        />
      }
    />
  );
}
