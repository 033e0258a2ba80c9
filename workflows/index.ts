// Every workflow the worker runs; the worker bundles this file.
export { bulkSendWorkflow } from './bulk/workflow';
export { documentWorkflow } from './document/workflow';
export { mailWorkflow } from './mail/workflow';
export { offerWorkflow } from './offer/workflow';
export { outboxRelayWorkflow } from './outbox/relay';
export { ping } from './ping/workflow';
export { signRequestWorkflow } from './signing/workflow';
export { transferWorkflow } from './transfer/workflow';
export { webhookDeliveryWorkflow } from './webhook/delivery';
