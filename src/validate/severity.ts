import { isLockedCode, type Code } from '../diagnostics/codes.js';
import type { Diagnostic, Severity } from '../diagnostics/diagnostic.js';
import { pathMatcher, relativePath, type PathMatcher } from './path-globs.js';

/** What `sessionctl.yaml` may set a code to: `off` drops its findings. */
export type SeveritySetting = 'off' | Severity;

/**
 * Severity settings by code (`rule/empty-allowlist`) or by group (`catalog/*`, every code that
 * starts with `catalog/`). In one map an exact code beats its group.
 */
export type RuleSettings = Readonly<Record<string, SeveritySetting>>;

/**
 * The severity settings of a project: `rules` everywhere, then each override whose `files` globs
 * match a finding's file, in order, a later one winning over an earlier one (eslint's `overrides`).
 * Globs are relative to `dir`, the folder of `sessionctl.yaml`.
 */
export interface SeverityControls {
  dir: string;
  rules: RuleSettings;
  overrides: ReadonlyArray<{ files: readonly string[]; rules: RuleSettings }>;
}

/** The setting a map gives a code: the code itself, else its group, else none. */
function settingIn(rules: RuleSettings, code: string): SeveritySetting | undefined {
  if (Object.hasOwn(rules, code)) return rules[code];
  const group = `${code.slice(0, code.indexOf('/'))}/*`;
  return Object.hasOwn(rules, group) ? rules[group] : undefined;
}

/**
 * Applies the project's severity settings to findings: each gets the severity of the last layer
 * that sets its code, or is dropped for `off`. Locked codes (unreadable files, YAML that did not
 * parse, the configuration's own errors) keep theirs whatever the file says.
 */
export function applySeverities(diagnostics: readonly Diagnostic[], controls: SeverityControls | undefined): Diagnostic[] {
  if (controls === undefined || (Object.keys(controls.rules).length === 0 && controls.overrides.length === 0)) return [...diagnostics];
  const matchers: PathMatcher[] = controls.overrides.map((o) => pathMatcher(o.files));
  // Findings of one file share their overrides: resolve them once per file.
  const layersByFile = new Map<string, RuleSettings[]>();
  const layersFor = (file: string | undefined): RuleSettings[] => {
    const key = file ?? '';
    let layers = layersByFile.get(key);
    if (layers === undefined) {
      const rel = file === undefined ? undefined : relativePath(controls.dir, file);
      layers = [controls.rules, ...controls.overrides.filter((_, i) => rel !== undefined && matchers[i]!(rel)).map((o) => o.rules)];
      layersByFile.set(key, layers);
    }
    return layers;
  };
  const out: Diagnostic[] = [];
  for (const d of diagnostics) {
    const setting = isLockedCode(d.code) ? undefined : settingFor(d.code, layersFor(d.file));
    if (setting === 'off') continue;
    out.push(setting === undefined || setting === d.severity ? d : { ...d, severity: setting });
  }
  return out;
}

function settingFor(code: Code, layers: readonly RuleSettings[]): SeveritySetting | undefined {
  let setting: SeveritySetting | undefined;
  for (const layer of layers) setting = settingIn(layer, code) ?? setting;
  return setting;
}
