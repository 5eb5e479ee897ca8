import { UsageError } from '../diagnostics/errors.js';
import type { CommandEnv } from './command.js';

/**
 * Asks `question` on a terminal and answers whether the reply was `yes`. Off a terminal nothing is
 * asked: `refusal` is thrown (a deletion in CI needs --auto-approve, never a guess).
 */
export async function askYes(env: CommandEnv, question: string, refusal: UsageError): Promise<boolean> {
  const stdin = env.io.stdin as NodeJS.ReadableStream & { isTTY?: boolean };
  if (stdin.isTTY !== true || env.io.stderr.isTTY !== true) throw refusal;
  env.io.stderr.write(question);
  const answer = await new Promise<string>((resolve) => {
    let text = '';
    const onData = (chunk: Buffer | string): void => {
      text += chunk.toString();
      if (text.includes('\n')) {
        stdin.off('data', onData);
        stdin.pause();
        resolve(text.split('\n')[0]!.trim());
      }
    };
    stdin.on('data', onData);
    stdin.resume();
  });
  return answer === 'yes';
}
