import { NotAvailablePage } from '../placeholder/NotAvailablePage';

/** Reserved for issue 6 (tools and monitoring): until it is built, the honest "not available yet" page. */
export function ImportWorkflowPage() {
  return <NotAvailablePage />;
}
