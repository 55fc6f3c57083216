// Asks before leaving a page with unsaved changes. The page shown sets a guard (the router drops
// it on every page change); in-app links, hash changes and closing or reloading the tab ask it.

let guard;

/**
 * While this page is shown: `changed()` says whether leaving would lose edits, `confirm()`
 * resolves to true when the reader chooses to leave anyway.
 */
export const guardLeaving = (g) => {
  guard = g;
};
export const dropGuard = () => {
  guard = undefined;
};

/** True when leaving now would lose edits. */
export const leavingLosesEdits = () => Boolean(guard?.changed());

/** Resolves to true to go on: nothing would be lost, or the reader said Leave. */
export const mayLeave = async () => !leavingLosesEdits() || guard.confirm();

const plainClick = (e) => e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey;

/**
 * Asks before an in-app link is followed (before the address changes, so Stay leaves no history
 * entry), and lets the browser ask before the tab is closed or reloaded.
 */
export function installLeaveGuard() {
  document.addEventListener(
    'click',
    async (e) => {
      const link = e.target.closest?.('a[href^="#/"]');
      if (!link || link.target || !plainClick(e) || link.getAttribute('href') === location.hash || !leavingLosesEdits()) return;
      e.preventDefault();
      if (!(await guard.confirm())) return;
      dropGuard();
      location.hash = link.getAttribute('href');
    },
    true,
  );
  window.addEventListener('beforeunload', (e) => {
    if (!leavingLosesEdits()) return;
    e.preventDefault();
    e.returnValue = '';
  });
}
