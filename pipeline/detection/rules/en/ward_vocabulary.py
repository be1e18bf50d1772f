"""The words that are never a name or a place in a ward's note, whatever follows "wife", "Dr",
"per" or "transferred from": function words, kinship and role words, the calendar, and the ward's
own shorthand (units, wards, devices, drugs, scores and the verbs of a handover). Plain data, kept
apart from :mod:`.name_words`, which asks them; each later addition names the find note it came from.
"""
from __future__ import annotations

FUNCTION = """a an the this that these those his her hers him he she they them their theirs our ours your yours my me
we us it its i you who whom whose which what when where why how all any some no not none each every both either
neither other another same such and or but nor so yet if then than as at by for from in into of off on onto out
over to up with within without about above after again against along among around before behind below beneath
beside between beyond down during except inside near outside past since through toward towards under until upon
via per re is are was were be been being am has have had having do does did done will would shall should can could
may might must ok okay yes also still just very well too now here there today tonight tomorrow yesterday am pm
again once twice further further more most less least much many few several only own""".split()
CONTEXT = """wife husband son sons daughter daughters sister sisters brother brothers mother father mom dad parents
parent friend friends family families fiance fiancee partner niece nephew aunt uncle cousin grandson granddaughter
grandmother grandfather grandchildren girlfriend boyfriend neighbor neighbour spouse children child kids relative
relatives visitor visitors nurse nurses rn rns md mds np nps pa doctor doctors dr drs attending attendings resident
residents fellow fellows intern interns team teams staff physician physicians surgeon surgeons hospitalist
intensivist pcp hcp proxy guardian chaplain pt pts patient patients self
trooper troopers officer officers ofc sgt sergeant deputy detective""".split()
CALENDAR = """january february march april may june july august september october november december jan feb mar apr
jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur
thurs fri sat sun""".split()
# what follows "with", "per", "family", "Dr", "at", "to" in ICU notes and is no one's name
WARD = """protocol protocols good effect effects meeting meetings called call calls aware notified paged updated
update plan plans care order orders orders present bedside phone visit visiting visited in-house house night day
evening charge primary float resource covering coverage admitting oncall on-call service services consult consults
consulted team recommendations rec recs discussion discussed help assist assistance support instructions
instruction teaching status report regards regard regarding input agreement approval permission consent
micu sicu ccu csru ctsicu nicu picu tsicu icu pacu ed er or ct cta mri mra ir ep us cxr kub ekg ecg echo tee
cath lab floor floors home rehab snf ltc ltac hospice nh osh vna ems ambulance unit units room rooms bed beds
chair stretcher wheelchair commode bathroom shower radiology dialysis hd crrt cvvh cvvhd ot slp pt rt sw cm
neuro neurology neurosurgery nsgy cardiology cards surgery surg ortho gi renal pulm pulmonary id heme onc
ent urology uro psych psychiatry derm gyn ob ccm medicine med meds trauma transplant vascular plastics
stable unstable intact alert oriented afebrile lethargic sedated comfortable awake asleep agitated calm
foley picc cvl tlc aline a-line art line lines swan ett ngt ogt peg peg-tube trach bipap cpap vent ventilator
ng og ij sc fem piv iv ivf drain drains jp chest tube tubes pacer pacemaker icd lvad iabp ecmo
lasix furosemide propofol fentanyl versed midazolam ativan lorazepam haldol morphine dilaudid tylenol heparin
insulin levophed neo neosynephrine dopamine dobutamine vasopressin epi vanco vancomycin zosyn cefepime
ceftriaxone flagyl levaquin cipro abx coumadin warfarin lovenox plavix aspirin asa lopressor metoprolol
labetalol hydralazine nitro ntg amio amiodarone dilt diltiazem digoxin kcl kphos mag magnesium calcium
potassium sodium lactulose colace senna dulcolax protonix pepcid zofran reglan ativan precedex nimbex
albumin prbc prbcs ffp plt plts cryo ns lr d5w d50 tpn tf tube-feeds feeds ensure
bid tid qid qd qhs hs prn stat npo po pr sl im sq sc gtt gtts drip drips mcg mg kg ml cc meq hr hrs min
bp hr rr sat sats spo2 fio2 peep map cvp ci co svr hct hgb wbc inr ptt abg vbg bun cr glu lytes
max min mod moderate mild severe good fair poor small large trace none some
mae mae's perrl perla wnl nad ntnd abd bs bm loc gcs cam rass ciwa colon
attestation addendum dnr dni dnh cmo fc practitioner physician physicians telemetry tele stepdown step-down
sdu ward wards medicine surgical cardiac cardiothoracic thoracic neurosurgical orthopedic orthopedics hs mn noc qam
qpm ac pc bl etoh baseline bair hugger hep lock swan ganz
carevue metavision ho hos house officer contin oxycontin msir
states stated reports reported says denies requests requested verbalizes verbalized
verbal nonverbal non-verbal lusb rusb llsb rlsb
clinic clinics office hob woc wocn detox bedrest
triage resus rlq llq ruq luq
yest yday moro res hcpoa dpoa mpoa poa
pod pager ica eca cca psv edv dre stapler biopatch endocatch phlebostatic indep
bmt sct rems vfw podiatry auth
outpt uvj dka reeval lido norco alf bkft atty attys
cvicu ew kvo adl adls med-surg medsurg whiteboard halo
cvsu rv lv acom acomm pcom pcomm evd bedrail bedrails
arr
nsg sitter sitters preop postop pre-op post-op upstairs downstairs
pj hj gj om backup approx
femstop femostop crani dtr exit
angio eeg anesthesia anesthesiology dayshift nightshift basilar bldg younger older swallow cane
decon
supine prone rle lle lue serosang serosanguinous sanguinous desk""".split()
# (an ED's triage and resuscitation bay and an abdomen's quadrants, where a patient or a pain moves: "sent
# from triage", "pain moved to rlq": ed_invented find f03, f14; yesterday's shorthand, "BLD CX FROM YEST",
# and a newborn's startle reflex, "INCOMPLETE MORO": icu_invented_o find f03, f06; a nursing home's
# "res" for its resident, "Res is a 96 y/o", and the powers of attorney: ltc_invented find f01, f07)
# (a post-operative day, "removed at POD 14", a pager, "at pager 3-6208": icu_invented_p find f12, f16;
# a carotid duplex's arteries and velocities, "cca, ica, eca", a rectal exam, "DRE firm nodule", and
# devices, "Endo GIA stapler", "in Endocatch": rad_invented find f03, f05, f11; a dressing, the
# phlebostatic axis and "indep" for independent: icu_invented_q find f07, f11; a marrow or stem cell
# transplant's programme, "sent to the BMT program", a drug's risk programme, "Rev REMS survey", and
# a veterans' club without its post's number, "goes to the vfw in hurricane": spec_invented find f03, f10;
# "referred back to podiatry", "sent to auth coordinator": spec_invented find f43, f46; the outpatient
# pharmacy, a ureter's junction, diabetic ketoacidosis, a re-evaluation and lidocaine: ed_invented find
# f28, f29, f32, f20, f21; a drug's brand that is a town, "PREMEDICATED W/ NORCO 5/325", assisted living,
# breakfast and an attorney: ltc_invented find f21, f23, f25, f32; units a patient moves between,
# "transferred from CVICU", "adm from EW" (a Boston emergency ward), "pt from med-surg", an IV kept
# open, "IVF at KVO", "independent in ADLs", a board and a spine's brace, "on whiteboard", "COLLAR VS
# HALO": icu_invented_r find f07, icu_invented_s find f13, f14, icu_invented_p find f17, f22, f23; a
# heart surgery unit, the ventricles, the brain's communicating arteries, a ventricular drain and a
# bed's rail, "TRANSFER TO CVSU", "look at RV", "from ACOM aneurysm", "csf from evd", "loosened from
# bedrail": icu_invented_r find f27, icu_invented_s find f20, f23, f24, icu_invented_p find f35)
# (arrived, as a handover shortens it, "now sitting w/ wife (arr 0405)": icu_invented_p find f63)
# (nursing's shorthand, a 1:1 sitter, the weight before surgery and where a family lives in the same
# house: "sitter requested from nsg supervisor", "FALL PRECAUTIONS, SITTER", "wt up 2.3kg from preop",
# "SON AND DIL LIVE UPSTAIRS": icu_invented_p find f86, f102, f91, f107; a surgeon's anastomoses
# and a coronary branch, "drain near PJ", "bleeding from OM2", a backup plan and "approx":
# icu_invented_p find f123, f115, f122, f116)
# (a groin's compression device, "FEMSTOP APPLIED 60MMHG", a craniotomy's site, "JP FROM CRANI SITE",
# and a daughter's shorthand, "REHAB NEAR DTR IN STERLING": icu_invented_p find f190, f163, f181; a
# highway's exit, "EASTBOUND NEAR EXIT 19 IN PHILLIPSTON": f225)
# (where a patient goes or a finding came from and who saw them, "MAY GO TO ANGIO", "from EEG lab",
# "FROM ANESTHESIA", "UNCHANGED FROM DAYSHIFT", "infarcts from basilar occlusion", "elevator in bldg":
# icu_invented_p find f306, f307, f348, f310, f391; a sibling's age, a screen and a walking aid after
# a relation's or a person's word, "mom marisol and younger brother", "FAILED NURSE SWALLOW SCREEN",
# "INDEPENDENT W/ CANE": f282, f317, f400; a chemical's decontamination, "DECON AT SITE BY HUDSON FIRE":
# f336; "burn" and "burns" stay out, a surname as often: "per Dr Burns"; so does "hosp", which the
# starter's model reads inside hospitals' names: "near hosp", f445, cost precision on check halves)
# (a body's position and a limb's side, "RETURNED TO SUPINE", "septic shock from RLE cellulitis", a
# drain's serosanguinous fluid, "1 HR SEROSANG", and the nurses' desk, "MOVED TO ROOM NEAR DESK":
# icu_invented_p find f975, f990, f959, f1003; "rue" stays out, a street's word as often, and so does
# "ltach", the head of a named hospital's name: both cost recall on check halves; a police officer's
# rank is their title, never their name, "Trooper left card": f925)
# (the reporting verbs after a relative: "SON STATES PT IS DNR", icu_invented_c find f15; "Son is HCP
# (verbal, form to be done)", icu_invented_f find f29: philter-lite lists "Verbal" as a first name)

