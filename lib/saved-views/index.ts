export {
  createView,
  createViewInput,
  deleteView,
  getView,
  listViews,
  updateView,
  updateViewInput,
  type CreateViewInput,
  type SavedViewView,
  type UpdateViewInput,
} from './saved-views';
export { VIEW_PAGE, VIEW_PAGES, normalizeFilters, viewHref, type ViewPage } from './pages';
