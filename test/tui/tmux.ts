// A real terminal for end-to-end TUI tests: tmux runs the CLI; send-keys types, capture-pane reads the screen.
import { execFileSync, spawnSync } from 'node:child_process';
import { GONE_DEADLINE_MS, noneAlive, treeOf } from '../runtime/proc-helpers.js';

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

export class TmuxPane {
  private constructor(
    readonly socket: string,
    readonly name: string,
  ) {}

  /** Starts `command` (a shell line) in a detached cols×rows session on a private server socket. */
  static start(socket: string, name: string, cwd: string, command: string, cols: number, rows: number): TmuxPane {
    execFileSync('tmux', ['-S', socket, 'new-session', '-d', '-s', name, '-x', String(cols), '-y', String(rows), '-c', cwd, command]);
    return new TmuxPane(socket, name);
  }

  keys(...keys: string[]): void {
    execFileSync('tmux', ['-S', this.socket, 'send-keys', '-t', this.name, ...keys]);
  }

  /** Types text literally (no key-name lookup). */
  text(s: string): void {
    execFileSync('tmux', ['-S', this.socket, 'send-keys', '-t', this.name, '-l', s]);
  }

  capture(): string {
    return execFileSync('tmux', ['-S', this.socket, 'capture-pane', '-p', '-t', this.name], { encoding: 'utf8' });
  }

  /** Polls the screen until `pred` holds; fails with the last screen after `timeoutMs`. */
  async waitFor(pred: (screen: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    let screen = '';
    while (Date.now() < end) {
      screen = this.capture();
      if (pred(screen)) return screen;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}; the screen was:\n${screen}`);
  }

  kill(): void {
    spawnSync('tmux', ['-S', this.socket, 'kill-server']);
  }

  /** Kills the server and waits for every process the pane started to exit: the CLI still writes its data root while
   *  it shuts down on the hangup, so a sandbox removed before that fails with ENOTEMPTY (or loses the CLI's writes). */
  async stop(): Promise<void> {
    const panes = spawnSync('tmux', ['-S', this.socket, 'list-panes', '-a', '-F', '#{pane_pid}'], { encoding: 'utf8' });
    const tree = process.platform === 'linux' ? (panes.stdout ?? '').split('\n').filter(Boolean).flatMap((p) => treeOf(Number(p))) : [];
    this.kill();
    const left = await noneAlive(tree, GONE_DEADLINE_MS);
    if (left.length > 0) throw new Error(`processes the pane started outlived its terminal: ${left.join(', ')}`);
  }
}
