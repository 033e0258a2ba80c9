// Every workflow the worker runs; the worker bundles this file.
export { documentWorkflow } from './document/workflow';
export { ping } from './ping/workflow';
export { signRequestWorkflow } from './sign-request/workflow';
export { outboxRelayWorkflow } from './outbox/relay';
export { webhookDeliveryWorkflow } from './webhook/delivery';
export { mailWorkflow } from './mail/workflow';
