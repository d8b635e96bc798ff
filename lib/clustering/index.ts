export { fingerprint, fingerprintCache, clusterKey, type ErrorInput, type Fingerprint } from './fingerprint';
export { maskMessage, MASK } from './mask-message';
export { topInAppFrame, type StackFrame } from './stack-frame';
export { TemplateMerger, type MergedCluster, type TemplateEntry, type TemplateMergerOptions } from './template-merger';
export { clusterBatch, type ClusterBatchOptions } from './cluster-batch';
export { classifyError, type ClassifiedError, type ErrorToClassify } from './classify-error';
export { ERROR_CLASSES, type ErrorClass } from '@/lib/model/error-classes';
