// What access delivery takes part in, in a privacy request's life (src/privacy-requests/lifecycle.ts): the
// completion message (with its download link when the request has access results) is stored by the
// statement that completes the request, or, for a request that deleted data (its counts and recipients are
// read and recorded), in the completing transaction; the sweep drops expired links.
import { deletesData } from '../actions/registry.ts';
import { insertMessagesSql, messagesValue } from '../outbox/repository.ts';
import type { LifecycleHooks } from '../privacy-requests/lifecycle.ts';
import { announceCompletion, prepareAnnouncement } from './completion.ts';
import { accessLinkRepository, insertLinkFrom } from './repository.ts';

export const accessDeliveryHooks: LifecycleHooks = {
  completion: {
    async prepare(db, services, { row, policy }) {
      if (deletesData(policy.rules)) return null;
      const announcement = await prepareAnnouncement(db, services, row, policy);
      if (!announcement) return undefined;
      return (changed, param) => [
        ...(announcement.link
          ? [insertLinkFrom(changed, param(announcement.link.tokenHash), param(announcement.link.expiresAt))]
          : []),
        ...(announcement.messages.length > 0
          ? [
              insertMessagesSql(
                param(messagesValue(announcement.messages)),
                `EXISTS (SELECT FROM ${changed})`,
              ),
            ]
          : []),
      ];
    },
    complete: (tx, services, { row, policy }) => announceCompletion(tx, services, row, policy),
  },
  sweep: async (services) => {
    await accessLinkRepository.deleteExpired(services.db);
  },
};
