import type { OutStream } from './io.js';

/**
 * A backstop behind header-name redaction: every string the CLI writes passes through here, and
 * any literal secret registered with `add` is replaced, however it got into the text.
 */
export class Redactor {
  private readonly secrets = new Set<string>();
  private readonly sensitive = new Set<string>();
  /** `--show-sensitive`: the user's sensitive values pass; keys and literal secrets never do. */
  showSensitive = false;

  /** A key or a literal secret: always replaced. */
  add(secret: string | undefined): void {
    // Very short values would blank out ordinary words; a key is never that short.
    if (secret !== undefined && secret.length >= 6) this.secrets.add(secret);
  }

  /** A sensitive value of the user's (`${VAR}`): replaced unless `showSensitive` is set. */
  addSensitive(value: string): void {
    if (value.length >= 6) this.sensitive.add(value);
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join('****');
    if (!this.showSensitive) for (const s of this.sensitive) out = out.split(s).join('****');
    return out;
  }

  wrap(stream: OutStream): OutStream {
    // A getter, not a copy: a terminal's width changes when it is resized.
    return {
      isTTY: stream.isTTY,
      get columns() {
        return stream.columns;
      },
      write: (chunk) => stream.write(this.redact(chunk)),
    };
  }
}
