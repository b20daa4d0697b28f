// What access tasks gave for a request, opened, for the access package (under each system's name).
import type { Services } from '../services.ts';
import { taskRepository } from './repository.ts';
import { openTaskData, type TaskData } from './task-data.ts';

export interface ManualSystemData {
  key: string;
  name: string;
  data: TaskData;
}

export async function accessDataOfTasks(
  services: Pick<Services, 'db' | 'keyring'>,
  privacyRequestId: string,
): Promise<ManualSystemData[]> {
  const rows = await taskRepository.accessData(services.db, privacyRequestId);
  return rows.map((row) => ({
    key: row.system_key,
    name: row.system_name,
    data: openTaskData(services.keyring, row.id, row.data_sealed as Uint8Array),
  }));
}
