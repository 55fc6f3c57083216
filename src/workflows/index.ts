export { dispatchSignal, statusQuery } from './dispatch';
export { instanceOrder } from './instance-order';
