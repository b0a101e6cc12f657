/**
 * The scenario form, drawn from the field table's form model (web/src/scenario-form.ts): one control
 * per field the model shows, by the kind of control its declaration asks for. No field is drawn by
 * hand here; the page adds only what is not a scenario field (the model picker, the margin).
 */
import type { ReactNode } from 'react';
import { DEFAULT_OPTION, type FormControl } from '../scenario-form.js';

function Select({ control, onChange, optionLabel }: ControlProps & { optionLabel: (o: string) => string }) {
  return (
    <label>
      <span>{control.label}</span>
      <select value={control.value} onChange={(e) => onChange(e.target.value)} data-testid={control.testId}>
        {control.options.map((o) => (
          <option key={o} value={o}>
            {optionLabel(o)}
          </option>
        ))}
      </select>
    </label>
  );
}

function Input({ control, onChange }: ControlProps) {
  return (
    <label>
      <span>{control.label}</span>
      <input
        {...(control.control === 'number' ? { type: 'number', min: control.min ?? 1 } : {})}
        value={control.value}
        placeholder={control.placeholder}
        onChange={(e) => onChange(e.target.value)}
        data-testid={control.testId}
      />
    </label>
  );
}

function Toggle({ control, onChange }: ControlProps) {
  return (
    <label className="toggle">
      <input
        type="checkbox"
        checked={control.value === 'true'}
        onChange={(e) => onChange(e.target.checked ? 'true' : 'false')}
        data-testid={control.testId}
      />
      <span>{control.label}</span>
    </label>
  );
}

interface ControlProps {
  readonly control: FormControl;
  readonly onChange: (value: string) => void;
}

/** A labelled number input that is not a scenario field (the margin). */
export function NumberInput({
  label,
  value,
  min,
  onChange,
  testId,
}: {
  label: string;
  value: string;
  min: number;
  onChange: (v: string) => void;
  testId: string;
}) {
  return (
    <label>
      <span>{label}</span>
      <input
        type="number"
        min={min}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        data-testid={testId}
      />
    </label>
  );
}

/**
 * The controls of a form model: selects, numbers and text fields in the table's order, `extra` after
 * them, then the checkboxes. `defaultLabel` words a select's default option (what it stands for, when
 * the field's default depends on others).
 */
export function ScenarioForm({
  controls,
  onChange,
  defaultLabel,
  extra,
}: {
  controls: readonly FormControl[];
  onChange: (key: string, value: string) => void;
  defaultLabel: (control: FormControl) => string;
  extra?: ReactNode;
}) {
  const draw = (c: FormControl) => {
    const change = (value: string) => onChange(c.key, value);
    if (c.control === 'select')
      return (
        <Select
          key={c.key}
          control={c}
          onChange={change}
          optionLabel={(o) => (o === DEFAULT_OPTION ? defaultLabel(c) : o)}
        />
      );
    if (c.control === 'checkbox') return <Toggle key={c.key} control={c} onChange={change} />;
    return <Input key={c.key} control={c} onChange={change} />;
  };
  return (
    <div className="grid">
      {controls.filter((c) => c.control !== 'checkbox').map(draw)}
      {extra}
      {controls.filter((c) => c.control === 'checkbox').map(draw)}
    </div>
  );
}
