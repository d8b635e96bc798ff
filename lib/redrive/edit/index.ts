// Edit and redrive, bulk transforms: edited copies as versions of their dead letters.
export {
  editDeadLetter,
  editInput,
  listDeadLetterVersions,
  DeadLetterVersionView,
  DeadLetterVersionsView,
  EditedView,
  type EditInput,
  type EditResult,
} from './edit-dead-letter';
export {
  previewTransform,
  startTransform,
  transformInput,
  transformPreviewInput,
  MAX_TRANSFORM,
  TransformPreview,
  TransformStartedView,
  type TransformInput,
  type TransformResult,
  type CannotApply,
} from './transform-redrive';
export { applyTransform, transformSpec, transformStep, type TransformSpec, type TransformStep } from './transform';
export { editDiff, type EditDiff } from './diff';
