/** The screen worker's entry: every screen of the host process, parsed off the thread that forwards output. */
import { parentPort } from 'node:worker_threads';
import { ScreenBook, type ScreenRequest } from './screen-book.js';

const port = parentPort!;
const book = new ScreenBook((reply) => port.postMessage(reply));
port.on('message', (request: ScreenRequest) => book.handle(request));
