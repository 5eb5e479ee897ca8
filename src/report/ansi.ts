/**
 * The few ANSI styles the human reporter uses. With colour off every style is the identity, so
 * renderers never branch on colour themselves.
 */
export interface Style {
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  green(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const wrap =
  (open: number, close: number) =>
  (text: string): string =>
    text === '' ? '' : `\u001b[${open}m${text}\u001b[${close}m`;

const colored: Style = {
  red: wrap(31, 39),
  yellow: wrap(33, 39),
  cyan: wrap(36, 39),
  green: wrap(32, 39),
  dim: wrap(2, 22),
  bold: wrap(1, 22),
};

const identity = (text: string): string => text;
const plain: Style = { red: identity, yellow: identity, cyan: identity, green: identity, dim: identity, bold: identity };

export function createStyle(color: boolean): Style {
  return color ? colored : plain;
}
