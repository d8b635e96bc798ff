// The demo: handlers for its sources, a producer, and the switches (deploy v2, payments outage).
export { deployDemoHandler } from './deploy';
export { demoHandlers } from './handlers';
export { produceDemoBatch, type DemoBatch, type DemoBatchOptions, type DemoGroup } from './produce';
export { demoHandlerVersion, paymentsDownUntil, startPaymentsOutage, HANDLER_VERSIONS, type HandlerVersion } from './settings';
