// svc assets and svc drive: files in your Drive.
import fs from 'node:fs';
import { type CommandKit, UsageError } from './kit';

export function driveCommands({ root, act, list, paging }: CommandKit): void {
  const assets = root.command('assets').description('files for your Drive');
  assets
    .command('upload <files...>')
    .description('upload files to your Drive (streamed, with a progress bar on a terminal)')
    .action(
      act(async ({ client, out }, files: string[]) => {
        const uploaded = [];
        for (const file of files) {
          if (!fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);
          const bar = out.progress(file, fs.statSync(file).size);
          try {
            uploaded.push(await client.uploadAsset({ path: file, onProgress: (done) => bar.update(done) }));
          } finally {
            bar.stop();
          }
        }
        out.table(uploaded, ['drive_file_id', 'name', 'kind', 'size', 'sha256'], uploaded);
      }),
    );
  const drive = root.command('drive').description('your Drive');
  paging(drive.command('list').description('Drive files')).action(
    act(async ({ client, out }, options: { limit?: number; cursor?: string }) =>
      list(out, await client.listDrive(options), ['drive_file_id', 'name', 'kind', 'size', 'created_at']),
    ),
  );
  drive
    .command('get <id>')
    .description('one Drive file')
    .action(act(async ({ client, out }, id: string) => out.result(await client.getDriveFile(id))));
  drive
    .command('delete <id>')
    .description('remove a Drive file')
    .action(act(async ({ client, out }, id: string) => out.result(await client.deleteDriveFile(id), () => `${id} deleted`)));
}
