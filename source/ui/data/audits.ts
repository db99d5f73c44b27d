/** The explorer's reader of audits: one with its transcript, and the audits of an agent's explanation. */
import type {Db} from '../../store/db.js';
import {auditIdsOf, auditMessages, getAudit, type AuditMessage, type AuditRow} from '../../store/audits.js';

export interface AuditsReader {
  /** an audit and its transcript */
  audit(id: number): {row: AuditRow; messages: AuditMessage[]} | null;
  /** the ids of the audits of an agent's explanation of an instance, oldest first */
  auditIds(instance: string, agent: string): number[];
}

export function auditsReader(db: Db): AuditsReader {
  return {
    audit: id => {
      const row = getAudit(db, id);
      return row ? {row, messages: auditMessages(db, id)} : null;
    },
    auditIds: (instance, agent) => auditIdsOf(db, instance, agent),
  };
}
