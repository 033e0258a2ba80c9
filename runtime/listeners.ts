import fs from 'node:fs';

// Local addresses a connection to 127.0.0.1 can land on, as /proc/net/tcp{,6} writes them (each
// 32-bit word in host order): 127.0.0.1 and 0.0.0.0, then ::, ::ffff:127.0.0.1 and ::ffff:0.0.0.0.
const REACHED_FROM_LOOPBACK = new Set([
  '0100007F',
  '00000000',
  '00000000000000000000000000000000',
  '0000000000000000FFFF00000100007F',
  '0000000000000000FFFF000000000000',
]);
const LISTEN = '0A';

/** Inodes of the listening sockets that take connections to 127.0.0.1:port; undefined without procfs. */
function loopbackListeners(port: number): string[] | undefined {
  const inodes: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      if (table.endsWith('6')) continue;
      return undefined;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== LISTEN) continue;
      const [address, hexPort] = fields[1].split(':');
      if (Number.parseInt(hexPort, 16) === port && REACHED_FROM_LOOPBACK.has(address)) inodes.push(fields[9]);
    }
  }
  return inodes;
}

function socketInodesOf(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/**
 * Who answers 127.0.0.1:port: 'owner' when every listener there is `pid`'s, 'other' when another
 * process holds one, 'none' when nothing listens, 'unknown' where /proc cannot tell (not Linux).
 */
export function loopbackListener(pid: number, port: number): 'owner' | 'other' | 'none' | 'unknown' {
  const listeners = loopbackListeners(port);
  if (!listeners) return 'unknown';
  if (listeners.length === 0) return 'none';
  let owned: Set<string>;
  try {
    owned = socketInodesOf(pid);
  } catch (error) {
    // A process that is gone holds nothing; one we may not look into could hold anything.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'other';
    return 'unknown';
  }
  return listeners.every((inode) => owned.has(inode)) ? 'owner' : 'other';
}
