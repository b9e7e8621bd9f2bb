export * from './options.js';
export * from './notices.js';
export * from './paste.js';
export * from './ledger.js';
export * from './journal.js';
