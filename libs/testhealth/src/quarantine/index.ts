export {
  allFailuresQuarantined,
  isQuarantined,
  quarantineSettingOf,
  type QuarantineBasis,
  type QuarantineOverride,
  type QuarantineSetting,
  type QuarantineSwitches,
  type QuarantineVerdict,
} from './quarantine';
export { corroborationOf, originOf, type Corroboration } from './evidence';
export { countsAsEvidence, quarantineEvidenceOf, uploaderOf, type QuarantineEvidence } from './evidence-reporters';
