export * from './permissions';
export { authorize, sourceScope, auditActor, isAssistant, isSystem, SYSTEM, type Actor, type Principal, type SystemPrincipal } from './actor';
