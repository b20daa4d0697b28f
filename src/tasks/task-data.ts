// The data a person gives when completing a task is personal (what a spreadsheet holds of the subject):
// it is sealed at rest under the keyring purpose `task-data`, bound to the task id. Only this module seals
// and opens it.
import type { Keyring } from '../crypto/keyring.ts';
import { openText, seal } from '../crypto/secret-box.ts';

export type TaskData = Record<string, string>;

const associatedData = (taskId: string) => `task-data:${taskId}`;

export function sealTaskData(keyring: Keyring, taskId: string, data: TaskData): Buffer {
  return seal(keyring.secretKey('task-data'), JSON.stringify(data), associatedData(taskId));
}

export function openTaskData(keyring: Keyring, taskId: string, sealed: Uint8Array): TaskData {
  return JSON.parse(openText(keyring.secretKey('task-data'), sealed, associatedData(taskId))) as TaskData;
}
