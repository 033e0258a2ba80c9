// Legal text of the sample templates. Plain ASCII: the samples are set in the standard Times fonts.

export const NDA_TITLE = 'MUTUAL NON-DISCLOSURE AGREEMENT';

export const NDA_PREAMBLE =
  'This Mutual Non-Disclosure Agreement (the "Agreement") is entered into as of the date of the last signature below (the "Effective Date") between the party identified below as the Disclosing Party and the party identified below as the Receiving Party (each a "Party" and together the "Parties"). The Parties wish to explore a possible business relationship (the "Purpose") and, in doing so, may disclose to each other information that is confidential. In consideration of the mutual promises below, the Parties agree as follows.';

export const NDA_CLAUSES: Array<[string, string]> = [
  [
    'Confidential Information.',
    '"Confidential Information" means any non-public business, technical, financial or personal information disclosed by one Party to the other, in any form, that is marked as confidential or that a reasonable person would understand to be confidential given its nature and the circumstances of its disclosure, including product plans, source code, pricing, customer lists and know-how.',
  ],
  [
    'Exclusions.',
    "Confidential Information does not include information that (a) is or becomes publicly available through no fault of the recipient; (b) was lawfully known to the recipient before disclosure without a duty of confidence; (c) is lawfully received from a third party without restriction; or (d) is independently developed by the recipient without use of or reference to the discloser's Confidential Information.",
  ],
  [
    'Obligations.',
    "The recipient shall use the discloser's Confidential Information only for the Purpose, shall protect it with at least the degree of care it uses for its own information of like importance and never less than reasonable care, and shall disclose it only to its employees, officers and advisers who need to know it for the Purpose and who are bound by written obligations at least as protective as these.",
  ],
  [
    'Compelled Disclosure.',
    'If the recipient is required by law, regulation or court order to disclose Confidential Information, it may do so provided that it gives the discloser prompt written notice, where lawful, and reasonable assistance in seeking a protective order, and discloses only the portion legally required.',
  ],
  [
    'Return and Destruction.',
    "Upon the discloser's written request, or upon termination of discussions, the recipient shall promptly return or destroy all Confidential Information in its possession and certify the same in writing, except for copies retained in routine backups or as required by law, which remain subject to this Agreement.",
  ],
  [
    'No License; No Warranty.',
    'Nothing in this Agreement grants any license under any patent, copyright or other intellectual property right. All Confidential Information is provided "AS IS", without warranty of any kind, and neither Party is obliged to enter into any further agreement.',
  ],
  [
    'Term.',
    'This Agreement governs disclosures made within two (2) years after the Effective Date. The obligations of confidentiality survive for three (3) years after the date of each disclosure, and for trade secrets for as long as they remain trade secrets under applicable law.',
  ],
  [
    'Remedies.',
    'Each Party acknowledges that unauthorized use or disclosure of Confidential Information may cause irreparable harm for which damages are an inadequate remedy, and that the discloser is entitled to seek injunctive relief in addition to any other remedy available at law or in equity.',
  ],
  [
    'General.',
    'This Agreement is the entire agreement of the Parties on its subject matter and may be amended only in a writing signed by both Parties. It is governed by the laws of the State of Delaware, without regard to its conflict-of-laws rules. It may be signed electronically and in counterparts, each of which is an original.',
  ],
];

const SECTIONS = [
  'Definitions and Interpretation',
  'Scope of Services',
  'Statements of Work',
  'Change Control',
  'Service Levels',
  'Client Responsibilities',
  'Provider Personnel',
  'Subcontracting',
  'Acceptance of Deliverables',
  'Fees and Expenses',
  'Invoicing and Payment',
  'Taxes',
  'Intellectual Property',
  'Licences Granted to the Client',
  'Confidentiality',
  'Data Protection',
  'Information Security',
  'Warranties',
  'Disclaimer of Warranties',
  'Indemnification',
  'Limitation of Liability',
  'Insurance',
  'Term and Renewal',
  'Termination for Convenience',
  'Termination for Cause',
  'Consequences of Termination',
  'Transition Assistance',
  'Non-Solicitation',
  'Publicity',
  'Force Majeure',
  'Audit and Records',
  'Compliance with Laws',
  'Anti-Bribery and Export Control',
  'Dispute Resolution',
  'Governing Law and Jurisdiction',
  'Notices',
  'Assignment',
  'Independent Contractors',
  'Entire Agreement and Amendment',
  'Waiver, Severability and Survival',
];

const SCHEDULES = [
  'Schedule A: Statement of Work Template',
  'Schedule B: Service Level Credits',
  'Schedule C: Data Processing Terms',
  'Schedule D: Security Requirements',
  'Schedule E: Rate Card',
  'Schedule F: Governance and Reporting',
  'Schedule G: Exit Plan',
  'Schedule H: Approved Subcontractors',
];

const SENTENCES = [
  'The Provider shall perform its obligations under this Section {n} with the skill, care and diligence expected of a leading supplier of similar services.',
  'Except as expressly set out in a Statement of Work, the obligations relating to {topic} apply to every Service delivered under this Agreement.',
  'Each Party shall bear its own costs in complying with this Section {n} unless the Parties agree otherwise in writing.',
  'Any notice given in connection with {topic} shall be made in writing and delivered in accordance with the Section headed Notices.',
  'Where the Client requests a variation that affects {topic}, the Provider shall submit a written impact assessment within ten (10) Business Days.',
  'The Client shall provide timely access to its premises, systems, information and personnel as reasonably required for the purposes of this Section {n}.',
  'Nothing in this Section {n} limits any right or remedy that either Party may have under applicable law.',
  'The Provider shall maintain complete and accurate records relating to {topic} for at least six (6) years after expiry or termination of this Agreement.',
  'If a Party becomes aware of any failure to comply with this Section {n}, it shall notify the other Party without undue delay and take prompt corrective action.',
  'The Parties shall review the arrangements for {topic} at each quarterly governance meeting and record any agreed changes in the minutes.',
  'To the extent that any provision on {topic} conflicts with a Statement of Work, this Agreement prevails unless the Statement of Work expressly states otherwise.',
  "The Provider shall not be liable for any delay to the extent caused by the Client's failure to perform its obligations under this Section {n}.",
  'All amounts referred to in connection with {topic} are exclusive of value added tax and similar taxes, which shall be payable in addition.',
  'The rights granted under this Section {n} are personal to the Client and may not be sub-licensed except to its Affiliates.',
  'Each Party shall ensure that its employees and subcontractors comply with the obligations relating to {topic} as if they were a party to this Agreement.',
  'Disputes concerning {topic} shall first be referred to the Project Managers and, failing resolution within fifteen (15) days, to the Executive Sponsors.',
  'The Client may, on reasonable notice, request reports on {topic}, and the Provider shall provide them within five (5) Business Days.',
  'Where this Section {n} requires a Party to act reasonably, that Party shall not unreasonably withhold, condition or delay its consent.',
  'Any approval given under this Section {n} shall be in writing and shall not relieve the Provider of its obligations under this Agreement.',
  'The Provider shall appoint a suitably qualified individual to be responsible for {topic} and shall notify the Client of that individual in writing.',
  'The Parties acknowledge that the arrangements for {topic} have been taken into account in the Charges.',
  'The Provider shall promptly inform the Client of any change in law that is likely to affect {topic}.',
  'A failure or delay by either Party in exercising any right under this Section {n} shall not operate as a waiver of that right.',
  'The Client shall pay all undisputed invoices relating to {topic} within thirty (30) days of receipt.',
];

/** A fixed pseudo-random sequence (mulberry32): the same text on every build, so template hashes are stable. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` different sentences in a random order. */
function pick(next: () => number, count: number): string[] {
  const pool = [...SENTENCES];
  return Array.from({ length: count }, () => pool.splice(Math.floor(next() * pool.length), 1)[0]);
}

export interface Clause {
  heading?: string;
  text: string;
}

/** The services agreement's clauses, without end: sections, then schedules, then further numbered annexes. */
export function* servicesAgreementClauses(): Generator<Clause> {
  const next = random(7);
  const titles = function* () {
    yield* SECTIONS.map((title, i) => ({ number: `${i + 1}`, title: `${i + 1}. ${title.toUpperCase()}`, topic: title.toLowerCase() }));
    yield* SCHEDULES.map((title, i) => ({
      number: String.fromCharCode(65 + i),
      title: title.toUpperCase(),
      topic: title.split(': ')[1].toLowerCase(),
    }));
    for (let annex = 1; ; annex += 1) {
      const topic = SECTIONS[(annex - 1) % SECTIONS.length];
      yield { number: `X${annex}`, title: `ANNEX ${annex}: SUPPLEMENTARY TERMS ON ${topic.toUpperCase()}`, topic: topic.toLowerCase() };
    }
  };
  for (const section of titles()) {
    yield { heading: section.title, text: '' };
    const subsections = 3 + Math.floor(next() * 4);
    for (let sub = 1; sub <= subsections; sub += 1) {
      const opening = sub === 1 ? [`This Section {n} sets out the rights and obligations of the Parties concerning ${section.topic}.`] : [];
      const body = [...opening, ...pick(next, 2 + Math.floor(next() * 3))]
        .map((sentence) => sentence.replaceAll('{n}', section.number).replaceAll('{topic}', section.topic))
        .join(' ');
      yield { text: `${section.number}.${sub} ${body}` };
    }
  }
}

export const SERVICES_TITLE = 'MASTER SERVICES AGREEMENT';

export const SERVICES_PREAMBLE =
  'This Master Services Agreement (the "Agreement") is made between the party identified on the signature page as the Client and the party identified on the signature page as the Provider. The Provider carries on the business of providing professional and managed services, and the Client wishes to engage the Provider to provide such services on the terms set out below. The Parties therefore agree as follows.';

export const SERVICES_WITNESS =
  'IN WITNESS WHEREOF, the Parties have executed this Agreement by their duly authorized representatives as of the later of the dates written below. Each Party has initialled every page of this Agreement to confirm that it has read and accepts its terms.';
