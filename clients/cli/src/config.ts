import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where `svc login` keeps the key and base URL: $SVC_CONFIG, else $XDG_CONFIG_HOME/svc/config.json. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_CONFIG) return env.SVC_CONFIG;
  const base = env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config');
  return path.join(base, 'svc', 'config.json');
}

export interface Settings {
  apiKey?: string;
  baseUrl?: string;
}

export function readConfig(file = configPath()): Settings {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { api_key?: string; base_url?: string };
    return { apiKey: parsed.api_key, baseUrl: parsed.base_url };
  } catch {
    return {};
  }
}

/** The key is a secret: the file is the user's alone (0600, in a 0700 folder). */
export function writeConfig(settings: Required<Settings>, file = configPath()): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${JSON.stringify({ api_key: settings.apiKey, base_url: settings.baseUrl }, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

/** Options beat the environment, which beats the config file; the base URL defaults to a local `npm start`. */
export function resolveSettings(options: Settings, env: NodeJS.ProcessEnv = process.env): Settings & { baseUrl: string } {
  const file = readConfig(configPath(env));
  return {
    apiKey: options.apiKey ?? env.SVC_API_KEY ?? file.apiKey,
    baseUrl: options.baseUrl ?? env.SVC_BASE_URL ?? file.baseUrl ?? 'http://localhost:3000',
  };
}
