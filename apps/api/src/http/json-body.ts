import express, { type RequestHandler } from 'express';
import { ApiError } from './errors';

/** The largest request body any route reads: 20 MiB. */
export const BODY_LIMIT = 20 * 1024 * 1024;

const parseJson = express.json({ limit: BODY_LIMIT, strict: false, type: () => true });

/** Only JSON is accepted; anything else is a 415 before a byte of the body is read. */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (!req.is('application/json'))
    return next(new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as JSON with Content-Type: application/json'));
  parseJson(req, res, next);
};
