export { dispatchSignal, statusQuery } from './dispatch';
