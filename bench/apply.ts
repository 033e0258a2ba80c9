// `npm run bench -- apply`: one apply (stamp + seal) on the 1-page and the 50-page sample, in
// process and end to end through HTTP (sign page → workflow → worker → commit), with their ratio.

import { buildSampleNda, buildSampleServicesAgreement, type SampleTemplate } from '../lib/pdf/samples';
import { stampWidgets } from '../lib/pdf/stamp';
import { SignerSession, seedSamples } from '../test/documents';
import { createAccount } from '../test/factories';
import { call } from '../test/http';
import { dataUrl, signaturePng } from '../test/images';
import { median, ms, startHarness } from './harness';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const signature = signaturePng();

async function inProcess(
  sample: SampleTemplate,
  sealer: { seal(pdf: Uint8Array, info: { reason: string }): Promise<Uint8Array> },
): Promise<number[]> {
  const role = sample.roles[0];
  const widgets = sample.widgets.filter((widget) => widget.role === role);
  const samples: number[] = [];
  for (let round = 0; round <= ROUNDS; round += 1) {
    const started = performance.now();
    const stamped = await stampWidgets(sample.pdf, {
      widgets,
      signer: { name: 'Bench Signer', email: 'bench@example.test' },
      signedAt: new Date(),
      signatureImage: signature,
      values: {},
    });
    await sealer.seal(stamped, { reason: 'bench' });
    if (round > 0) samples.push(performance.now() - started); // round 0 warms up
  }
  return samples;
}

async function main() {
  const harness = await startHarness({ SVC_APPLY_WAIT_MS: '60000' });
  try {
    const sealer = await harness.deps.sealer();
    const owner = await createAccount(harness.deps.db);
    const stack = { url: harness.url, deps: harness.deps, config: harness.deps.config } as Parameters<typeof seedSamples>[0];
    const templates = await seedSamples(stack, owner);
    const rows: string[][] = [];
    for (const [label, build, template] of [
      ['1-page NDA', buildSampleNda, templates.nda],
      ['50-page agreement', buildSampleServicesAgreement, templates.services],
    ] as const) {
      const local = median(await inProcess(await build(), sealer));
      const remote: number[] = [];
      for (let round = 0; round <= ROUNDS; round += 1) {
        const created = await call(harness.url, 'POST', '/v1/documents', {
          key: owner.key,
          body: {
            template_id: template.id,
            name: `bench ${round}`,
            signers: template.roles.map((_role, i) => ({ name: `Signer ${i}`, email: `s${i}-${round}-${Date.now()}@example.test` })),
            send: true,
          },
        });
        const first = created.body.signers[0];
        const session = await new SignerSession(stack, first.sign_url, first.email).verify();
        const values = Object.fromEntries(
          template.widgets.filter((w) => w.role === template.roles[0] && w.type === 'text' && w.required).map((w) => [w.id, 'Bench']),
        );
        const started = performance.now();
        const signed = await session.request('POST', '/sign', {
          consent: true,
          signature: { method: 'drawn', image: dataUrl(signature) },
          values,
        });
        const elapsed = performance.now() - started;
        if (signed.status !== 200) throw new Error(`sign answered ${signed.status}: ${signed.text}`);
        if (round > 0) remote.push(elapsed);
      }
      const endToEnd = median(remote);
      rows.push([label, ms(local), ms(endToEnd), `${(endToEnd / local).toFixed(2)}x`]);
    }
    const header = ['document', 'in process (stamp + seal)', 'end to end via HTTP', 'ratio'];
    const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
    const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ');
    console.log(`apply benchmark: median of ${ROUNDS} rounds after one warm-up; database ${harness.deps.dbDriver}`);
    console.log(line(header));
    for (const row of rows) console.log(line(row));
  } finally {
    await harness.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
