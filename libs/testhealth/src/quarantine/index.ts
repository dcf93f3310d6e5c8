export {
  allFailuresQuarantined,
  isQuarantined,
  quarantineSettingOf,
  type QuarantineOverride,
  type QuarantineSetting,
  type QuarantineSwitches,
  type QuarantineVerdict,
} from './quarantine';
