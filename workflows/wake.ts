import { defineSignal } from '@temporalio/workflow';

/**
 * Something the workflow waits on changed: a wake-up only. The workflow reads what happened from the
 * database, so a forged signal changes nothing. Offers, transfers and sign requests take it; the
 * document's workflow sends it to an apply's waiter when the apply settles.
 */
export const wakeSignal = defineSignal<[]>('wake');
