/** The error answers routes share, as the OpenAPI document describes them. */
import { problemResponse, Schema } from '../kernel/openapi';

export const errors = {
  400: problemResponse('Invalid input; `errors` names each field path'),
  401: problemResponse('Missing or unknown API key'),
  403: problemResponse(
    'The API key lacks the scope; with no API keys configured, the request named a non-loopback Host or came from a web page of another origin',
  ),
};
export const writeErrors = {
  ...errors,
  409: problemResponse('The trigger changed concurrently too often; try again'),
  413: problemResponse('Body over the size limit'),
  415: problemResponse('Body is not JSON'),
  503: problemResponse(
    "An infrastructure fault: a stored event of this trigger cannot be read (needs an operator), the read model is being rebuilt, the event store's server is away, or the store cannot write (its write lock held by another process for 10 s, a full disk, an I/O error; the last three with Retry-After)",
  ),
};

/** problem+json (RFC 9457), the body of every error. */
export const PROBLEM_SCHEMA: Schema = {
  type: 'object',
  required: ['type', 'title', 'status'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
    signals: {
      type: 'array',
      description: 'For a signal batch Temporal refused part-way: which ids were accepted',
      items: { type: 'object', required: ['id', 'accepted'], properties: { id: { type: 'string' }, accepted: { type: 'boolean' } } },
    },
  },
};
