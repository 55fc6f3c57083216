/** The floor for dispatch: a workflow that does nothing. */
export async function noopWorkflow(): Promise<void> {
  return undefined;
}
