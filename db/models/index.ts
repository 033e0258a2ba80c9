export { ApiKey } from './api-key';
export { Event } from './event';
export { Principal } from './principal';
export { PLANS, Tenant, type Plan } from './tenant';
