export * from './permissions';
export { authorize, sourceScope, auditActor, isSystem, SYSTEM, type Actor, type Principal, type SystemPrincipal } from './actor';
