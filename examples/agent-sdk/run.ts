// One trial of one arm with the Claude Agent SDK, as a benchmark runs it.
//
//   npx tsx run.ts ARM_DIR PROMPT [--transcript FILE] [--bypass-permissions]
//
// ARM_DIR is an `arm-build --out` folder; run this under guard-sh-launch
// (docs/harness.md). The options are the arm's own
// (runtimes/claude-agent-sdk.json): the arm's channel and nothing else, no
// settings or hooks from disk, the harness's HOME in the arm. The SDK's
// `env` replaces the harness's environment, so this adds only what the
// harness itself needs from ours: PATH, the model's credentials and
// endpoint, and the launcher's line server for the arm's shell. Every message is written to the transcript (JSON Lines) for
// `guard-sh-audit --transcript`. Exit status: 0 when the agent finished,
// 1 when it ended in error, 2 on a usage error.

import { query, type Options } from "@anthropic-ai/claude-agent-sdk";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// The harness's own needs, and what guard-sh-launch gives it for the arm's
// shell: the trial's line server and id (and its key, with --no-server).
const PASSED_ON = [
  "PATH",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "IS_SANDBOX",
  "GUARD_SH_SERVER",
  "GUARD_SH_TRIAL",
  "GUARD_SH_TRIAL_SEAL",
];

function usage(message: string): never {
  process.stderr.write(`run.ts: ${message}\n`);
  process.stderr.write("usage: tsx run.ts ARM_DIR PROMPT [--transcript FILE] [--bypass-permissions]\n");
  process.exit(2);
}

const args = process.argv.slice(2);
const positional: string[] = [];
let transcript: string | undefined;
let bypass = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--transcript") {
    transcript = args[++i] ?? usage("--transcript needs a file");
  } else if (args[i] === "--bypass-permissions") {
    bypass = true;
  } else {
    positional.push(args[i]);
  }
}
const [armDir, prompt] = positional;
if (!armDir || !prompt || positional.length !== 2) usage("give ARM_DIR and PROMPT");

const arm: Options = JSON.parse(
  readFileSync(join(armDir, "runtimes", "claude-agent-sdk.json"), "utf8"),
);
const env: Record<string, string | undefined> = { ...arm.env };
for (const name of PASSED_ON) {
  if (process.env[name] !== undefined) env[name] = process.env[name];
}
const options: Options = {
  ...arm,
  env,
  ...(bypass ? { permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true } : {}),
};

if (transcript) writeFileSync(transcript, "");
let failed = true;
try {
  for await (const message of query({ prompt, options })) {
    if (transcript) appendFileSync(transcript, JSON.stringify(message) + "\n");
    if (message.type === "result") {
      failed = message.is_error;
      if (message.subtype === "success") process.stdout.write(message.result + "\n");
    }
  }
} catch (error) {
  // The SDK's own errors carry its minified source; its message is what
  // says what went wrong.
  const text = error instanceof Error ? error.message : String(error);
  process.stderr.write(`run.ts: ${text.split("\n")[0]}\n`);
  process.exit(1);
}
process.exit(failed ? 1 : 0);
